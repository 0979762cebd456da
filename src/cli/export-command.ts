import { resolve } from 'node:path';
import type * as arrow from 'apache-arrow';
import { emptyLocalTable, localArrowTable } from '../buffer/arrow-codec.ts';
import { type BadCell, badRows } from '../buffer/bad-cell.ts';
import { connect } from '../buffer/connection.ts';
import { decodeExperiences } from '../buffer/experience-decode.ts';
import { sqlIn } from '../buffer/sql.ts';
import { decodeTaskRows } from '../buffer/task-table.ts';
import { DataQualityError } from '../core/errors.ts';
import { UsageError } from '../core/usage-error.ts';
import type {
  ExportFormat,
  ExportInputKind,
  ExportOptions,
  ExportResult,
  ExportSource,
} from '../export/export-format.ts';
import { jsonRowBatches } from '../export/json-rows.ts';
import { EXPORT_FORMATS } from '../export/registry.ts';
import { KIND_NOUN, tableKindOf } from '../export/table-kind.ts';
import { dropCounts, writeDropped, writeExportResult } from '../export/write-export.ts';
import {
  checkoutChecked,
  defaultTableOf,
  engineError,
  findRun,
  openExisting,
  readableDbDir,
  rowFilter,
} from '../inspect/table-target.ts';
import { writeJsonl } from '../io/jsonl-writer.ts';
import { readPreferenceLabels } from '../studio/preference-labels.ts';
import { parseCommand } from './command-spec.ts';
import { warnBadRows } from './inspect-command.ts';
import { exportSpec } from './specs/export.ts';

type Values = NonNullable<ReturnType<typeof parseCommand<typeof exportSpec.options>>>['values'];

function exportOptions(v: Values): ExportOptions {
  return {
    ...(v.split !== undefined ? { split: v.split } : {}),
    ...(v.ability !== undefined ? { ability: v.ability } : {}),
    ...(v['data-source'] !== undefined ? { dataSource: v['data-source'] } : {}),
    rewardStyle: v['reward-style'],
    sftPick: v['sft-pick'] === 'all' ? 'all' : 'best',
    ...(v['min-reward'] !== undefined ? { minReward: v['min-reward'] } : {}),
    minMargin: v['min-margin'],
    conversational: v.conversational,
    jsonText: v['json-text'] ?? [],
  };
}

/** The tables of `kind` in the database, for the hint when the wrong kind was given. */
async function tablesOfKind(dbDir: string, kind: ExportInputKind): Promise<string[]> {
  const conn = await connect(dbDir);
  const out: string[] = [];
  for (const name of await conn.tableNames()) {
    const schema = await (await conn.openTable(name)).schema();
    if (tableKindOf(schema as unknown as arrow.Schema) === kind) out.push(name);
  }
  return out;
}

async function wrongKind(dbDir: string, format: ExportFormat, tableName: string, kind: string) {
  const wanted = format.reads as ExportInputKind;
  const found = await tablesOfKind(dbDir, wanted);
  const preferred = wanted === 'tasks' && found.includes('tasks') ? 'tasks' : found[0];
  const orRun = wanted === 'experiences' ? ' or --run RUN' : '';
  const plural = wanted === 'tasks' ? 'task tables' : 'experience tables';
  const hint =
    preferred !== undefined
      ? `pass --table ${preferred}${orRun}; ${plural} here: ${found.join(', ')}`
      : `pass --table T${orRun}; this database has no ${plural.slice(0, -1)} yet`;
  return new UsageError(
    `format '${format.name}' reads ${KIND_NOUN[wanted]}, but '${tableName}' is ${KIND_NOUN[kind as ExportInputKind]} (${hint})`,
  );
}

/** Decode the rows for a format; rows with malformed cells are skipped with one warning each. */
function decode(
  data: arrow.Table,
  tableName: string,
  kind: ExportInputKind,
): {
  source: ExportSource;
  bad: BadCell[];
} {
  if (kind === 'tasks') {
    const { tasks, bad } = decodeTaskRows(data, tableName);
    return { source: { kind, table: tableName, tasks }, bad };
  }
  const bad: BadCell[] = [];
  const experiences = decodeExperiences(data, { bad, tableName }).map((s) => s.exp);
  return { source: { kind, table: tableName, experiences }, bad };
}

/** Cells of stored rows that cannot be read back (tasks: features/meta/messages; experiences: info/messages). */
function storedBadCells(data: arrow.Table, tableName: string, kind: string): BadCell[] {
  if (kind === 'other') return [];
  return decode(data, tableName, kind as ExportInputKind).bad;
}

/** Export a table, as stored or in a trainer-ready format (docs/exports.md). */
export async function exportCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(exportSpec, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  if (values.out === undefined) throw new UsageError('export needs --out FILE.jsonl or --out FILE.parquet');
  const out = resolve(values.out);
  const fileType = out.endsWith('.parquet')
    ? 'parquet'
    : out.endsWith('.jsonl') || out.endsWith('.ndjson')
      ? 'jsonl'
      : null;
  if (!fileType) throw new UsageError(`--out must end in .jsonl or .parquet, got ${values.out}`);
  const format = EXPORT_FORMATS.find((f) => f.name === values.format)!;
  const options = exportOptions(values);
  const dbDir = readableDbDir(values.db);
  try {
    const run = values.run !== undefined ? await findRun(dbDir, values.run) : undefined;
    const tableName = values.table ?? defaultTableOf(run, 'tasks');
    const table = await openExisting(dbDir, tableName);
    const kind = tableKindOf((await table.schema()) as unknown as arrow.Schema);
    if (format.reads !== 'stored' && format.reads !== kind)
      throw await wrongKind(dbDir, format, tableName, kind);
    const version = values.version !== undefined ? await checkoutChecked(table, values.version) : undefined;
    try {
      const filter = await rowFilter(table, { run, taskset: values.taskset, where: values.where });
      const stored = (await table.schema()) as unknown as arrow.Schema;
      // A query matching no rows comes back without columns; the export keeps the table's.
      const query = async (where: string | null) => {
        const rows = localArrowTable(await (where ? table.query().where(where) : table.query()).toArrow());
        return rows.numRows === 0 ? emptyLocalTable(stored) : rows;
      };
      let data = await query(filter);
      const filtered = filter !== null ? ' matching the filters' : '';
      if (data.numRows === 0 && format.reads !== 'stored')
        throw new UsageError(`table '${tableName}' has no rows${filtered}: nothing to export`);
      let result: ExportResult;
      let skipped: number;
      let written: number;
      if (format.reads !== 'stored') {
        const decoded = decode(data, tableName, kind as ExportInputKind);
        skipped = warnBadRows(decoded.bad);
        const labelledPairs = format.name === 'trl-dpo' ? await readPreferenceLabels(dbDir, tableName) : [];
        result = format.build(decoded.source, { ...options, labelledPairs });
        written = result.table.numRows;
      } else {
        const bad = storedBadCells(data, tableName, kind);
        skipped = warnBadRows(bad);
        if (skipped > 0) {
          // The stored columns are written as they are, less the rows that cannot be read back.
          const keep = `NOT ${sqlIn(
            'id',
            badRows(bad).map((cells) => cells[0]!.id),
          )}`;
          data = await query(filter ? `(${filter}) AND ${keep}` : keep);
        }
        if (fileType === 'jsonl' && kind === 'tasks') {
          written = await writeTasksJsonl(out, data, tableName);
          result = { table: data, rows: [], dropped: [], notes: [] };
        } else {
          result = format.build({ kind: 'stored', table: tableName, tableKind: kind, data }, options);
          written = result.table.numRows;
          // JSONL holds the rows the Parquet export holds, as JSON (json-rows.ts).
          if (fileType === 'jsonl') await writeJsonl(out, jsonRowBatches(result.table));
        }
      }
      for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
      const droppedNote = await reportDropped(out, result, format.name);
      if (format.reads !== 'stored' && written === 0)
        throw new DataQualityError(
          `format '${format.name}' kept no rows of the ${data.numRows - skipped} in '${tableName}'${droppedNote}; nothing written`,
        );
      if (format.reads !== 'stored' || fileType === 'parquet') await writeExportResult(out, result);
      const at = version !== undefined ? ` at version ${version}` : '';
      const skippedNote = skipped > 0 ? ` (skipped ${skipped} rows with malformed cells)` : '';
      const as = format.name === 'winnow' ? '' : ` as ${format.name}`;
      process.stdout.write(
        `wrote ${written.toLocaleString('en-US')} rows of '${tableName}'${at} to ${out}${as}${skippedNote}${droppedNote}\n`,
      );
    } finally {
      if (version !== undefined) await table.checkoutLatest();
    }
  } catch (err) {
    throw engineError(err, `export of table '${values.table ?? 'tasks'}'`);
  }
  return 0;
}

/** The left-out rows go to FILE.dropped.jsonl; returns the note for the summary line ('' when none). */
async function reportDropped(out: string, result: ExportResult, format: string): Promise<string> {
  if (result.dropped.length === 0) return '';
  const file = await writeDropped(out, result.dropped);
  return `; ${format} left out ${result.dropped.length} (${dropCounts(result.dropped)}), listed in ${file}`;
}

/** The winnow format of a task table as JSONL: one Task object a line, as `winnow run` reads tasks. */
async function writeTasksJsonl(out: string, data: arrow.Table, tableName: string) {
  const { tasks } = decodeTaskRows(data, tableName);
  await writeJsonl(out, tasks);
  return tasks.length;
}
