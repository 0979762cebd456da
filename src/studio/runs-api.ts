import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readRuns } from '../inspect/run-views.ts';
import { loadRunComparison, RunFolderError } from '../lifecycle/report/compare/run-comparison.ts';
import { HttpError } from '../serve/http-error.ts';
import type { StudioContext } from './studio-context.ts';

/** Every run of the database (oldest first), as `winnow runs --json` shows it. */
export async function listRuns(ctx: StudioContext) {
  return { runs: await readRuns(ctx.dbDir) };
}

/**
 * The comparison of two or more runs — metric series over steps and the config diff — from the
 * shared loader (src/lifecycle/report/compare/), the same data `winnow compare` writes into its HTML file.
 * Runs are named by id: their folder is the one the runs table records, else `<runs>/<id>`.
 */
export async function compareRuns(ctx: StudioContext, ids: readonly string[]) {
  const views = await readRuns(ctx.dbDir);
  const dirs = ids.map((id, i) => {
    if (id.includes('..') || id.includes('/') || id.includes('\\'))
      throw new HttpError({
        status: 400,
        code: 'path_outside_database',
        field: `run[${i}]`,
        message: `run '${id}' names a path; runs are named by id`,
        hint: 'GET /api/runs lists them',
      });
    const view = views.find((v) => v.runId === id);
    const dir = view?.runDir ? resolve(view.runDir) : join(resolve(ctx.runsDir), id);
    if (!existsSync(dir))
      throw new HttpError({
        status: 404,
        code: 'unknown_run',
        field: `run[${i}]`,
        message: view
          ? `run '${id}' has no folder at ${dir}`
          : `no run '${id}' in the database or under ${ctx.runsDir}`,
        hint: 'GET /api/runs lists them',
      });
    return dir;
  });
  const statuses = views
    .filter((v) => ids.includes(v.runId))
    .map((v) => ({ runId: v.runId, status: v.status, statusNote: v.statusNote }));
  try {
    return await loadRunComparison(dirs, { statuses });
  } catch (err) {
    if (err instanceof RunFolderError)
      throw new HttpError({ status: 422, code: 'bad_run_folder', field: 'run', message: err.message });
    throw err;
  }
}
