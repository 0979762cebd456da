import { createReadStream, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { HttpError } from '../serve/http-error.ts';
import { RunTable } from '../store/run-table.ts';
import { sqlString } from '../store/sql.ts';
import { openStudioTable, type StudioContext } from './studio-context.ts';

/** The `files` a run record's summary lists (task pipelines record the dataset files they read). */
function summaryFiles(summary: string): string[] {
  try {
    const s = JSON.parse(summary) as { files?: unknown };
    return Array.isArray(s.files) ? s.files.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Whether a run recorded `file` as one of its inputs: a run record lists it among the files it
 * read, or a row of the rejected table names it as the file the row came from. Compared as
 * written and as an absolute path (a run records absolute paths; older rows may be relative).
 */
async function recordedInput(ctx: StudioContext, file: string, rejectedTable: string): Promise<boolean> {
  const wanted = resolve(ctx.rootDir, file);
  for (const run of await RunTable.readAll(ctx.dbDir))
    if (summaryFiles(run.summary).some((f) => f === file || resolve(ctx.rootDir, f) === wanted)) return true;
  const table = await openStudioTable(ctx, rejectedTable).catch(() => null);
  if (!table) return false;
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  if (!names.has('file')) return false;
  const hits = await table
    .query()
    .where(`file = ${sqlString(file)}`)
    .select(['file'])
    .limit(1)
    .toArray();
  return hits.length > 0;
}

const unrecorded = (file: string) =>
  new HttpError({
    status: 404,
    code: 'unknown_file',
    field: 'file',
    message: `'${file}' is not an input file any run recorded`,
    hint: 'the Studio shows only the files runs read (GET /api/rejected names them)',
  });

/**
 * The real path of a recorded input, which must lie in the folder it was recorded in: a symlink
 * (the file or a folder on its way) that leads out of that folder is refused, whatever it names.
 */
function realInside(ctx: StudioContext, file: string): string {
  const path = resolve(ctx.rootDir, file);
  let real: string;
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
    real = realpathSync(path);
  } catch {
    throw new HttpError({
      status: 404,
      code: 'unknown_file',
      field: 'file',
      message: `the recorded input '${file}' is gone from ${dirname(path)}`,
    });
  }
  const rel = relative(folder, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new HttpError({
      status: 403,
      code: 'path_outside_folder',
      field: 'file',
      message: `'${file}' leads out of its folder ${dirname(path)} (a symbolic link); it is not shown`,
      hint: 'copy the file into the folder instead of linking it',
    });
  if (!statSync(real).isFile()) throw unrecorded(file);
  return real;
}

/**
 * A few lines of a recorded input file around `line`, for the rejected rows' "linked to the
 * source" view. Only files a run recorded are read, at their real path inside their recorded
 * folder; anything else (other files of the folder, `..`, absolute paths, links out) is refused
 * before a file is opened.
 */
export async function sourceLines(
  ctx: StudioContext,
  o: { file: string; line: number; context: number; table: string },
) {
  if (o.file.includes('\u0000') || !(await recordedInput(ctx, o.file, o.table))) throw unrecorded(o.file);
  const path = realInside(ctx, o.file);
  const from = Math.max(1, o.line - o.context);
  const to = o.line + o.context;
  const lines: Array<{ line: number; text: string }> = [];
  const rl = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const text of rl) {
    n++;
    if (n >= from) lines.push({ line: n, text: text.length > 2000 ? `${text.slice(0, 2000)}…` : text });
    if (n >= to) break;
  }
  rl.close();
  return { file: o.file, line: o.line, lines };
}
