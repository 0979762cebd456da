import { resolve } from 'node:path';
import { localArrowTable } from '../buffer/arrow-codec.ts';
import { badRows } from '../buffer/bad-cell.ts';
import { sqlIn } from '../buffer/sql.ts';
import { decodeTaskRows } from '../buffer/task-table.ts';
import { writeJsonl } from '../io/jsonl-writer.ts';
import { writeParquet } from '../io/parquet-writer.ts';
import { UsageError } from './args.ts';
import { type CommandSpec, DB_OPTION, parseCommand, ROW_FILTER_OPTIONS } from './command-spec.ts';
import { taskTableBadCells, warnBadRows } from './inspect-command.ts';
import {
  checkoutChecked,
  defaultTableOf,
  engineError,
  findRun,
  openExisting,
  readableDbDir,
  rowFilter,
} from './table-target.ts';

export const exportSpec = {
  name: 'export',
  args: '',
  maxArgs: 0,
  summary:
    'Write a table (tasks by default) to JSONL (tasks as Task objects) or Parquet (the stored columns). Reads the database only.',
  options: {
    out: {
      type: 'string',
      value: 'FILE',
      description: 'output file, ending in .jsonl, .ndjson or .parquet (required)',
    },
    db: DB_OPTION,
    table: {
      type: 'string',
      value: 'T',
      description: "table to export (default 'tasks'; with --run of an RFT run, its buffer table)",
    },
    version: { type: 'string', value: 'N|TAG', description: 'export the table as of this version or tag' },
    ...ROW_FILTER_OPTIONS,
  },
  notes: [
    'Rows with malformed cells (written by other tools) are skipped, one warning line each, and counted.',
  ],
  examples: [
    'winnow export --out tasks.jsonl',
    'winnow export --taskset gsm8k --where "answer IS NOT NULL AND source_row < 100" --out gsm8k.parquet',
  ],
} as const satisfies CommandSpec;

/** Export a table (tasks by default) to JSONL (tasks as Task objects) or Parquet (the stored columns). */
export async function exportCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(exportSpec, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  if (values.out === undefined) throw new UsageError('export needs --out FILE.jsonl or --out FILE.parquet');
  const out = resolve(values.out);
  const format = out.endsWith('.parquet')
    ? 'parquet'
    : out.endsWith('.jsonl') || out.endsWith('.ndjson')
      ? 'jsonl'
      : null;
  if (!format) throw new UsageError(`--out must end in .jsonl or .parquet, got ${values.out}`);
  const dbDir = readableDbDir(values.db);
  try {
    const run = values.run !== undefined ? await findRun(dbDir, values.run) : undefined;
    const tableName = values.table ?? defaultTableOf(run, 'tasks');
    const table = await openExisting(dbDir, tableName);
    const version = values.version !== undefined ? await checkoutChecked(table, values.version) : undefined;
    try {
      const filter = await rowFilter(table, { run, taskset: values.taskset, where: values.where });
      let data = await (filter ? table.query().where(filter) : table.query()).toArrow();
      const bad = taskTableBadCells(data, tableName);
      const skipped = warnBadRows(bad);
      let written = data.numRows;
      if (format === 'parquet') {
        if (skipped > 0) {
          // The stored columns are written as they are, less the rows that cannot be read back.
          const keep = `NOT ${sqlIn(
            'id',
            badRows(bad).map((cells) => cells[0]!.id),
          )}`;
          data = await table
            .query()
            .where(filter ? `(${filter}) AND ${keep}` : keep)
            .toArrow();
        }
        written = data.numRows;
        await writeParquet(out, localArrowTable(data));
      } else if (data.schema.fields.some((f) => f.name === 'content_hash')) {
        const { tasks } = decodeTaskRows(data, tableName);
        written = tasks.length;
        await writeJsonl(out, tasks);
      } else {
        const rows = data
          .toArray()
          .map(
            (r) =>
              JSON.parse(
                JSON.stringify(r.toJSON(), (_k, v) => (typeof v === 'bigint' ? Number(v) : v)),
              ) as object,
          );
        await writeJsonl(out, rows);
      }
      const at = version !== undefined ? ` at version ${version}` : '';
      const skippedNote = skipped > 0 ? ` (skipped ${skipped} rows with malformed cells)` : '';
      process.stdout.write(
        `wrote ${written.toLocaleString('en-US')} rows of '${tableName}'${at} to ${out}${skippedNote}\n`,
      );
    } finally {
      if (version !== undefined) await table.checkoutLatest();
    }
  } catch (err) {
    throw engineError(err, `export of table '${values.table ?? 'tasks'}'`);
  }
  return 0;
}
