import { resolve } from 'node:path';
import { localArrowTable } from '../buffer/arrow-codec.ts';
import { connect, DEFAULT_DB_DIR, openTableIfExists } from '../buffer/connection.ts';
import { sqlString } from '../buffer/sql.ts';
import { decodeTasks } from '../buffer/task-table.ts';
import { writeJsonl } from '../io/jsonl-writer.ts';
import { writeParquet } from '../io/parquet-writer.ts';
import { parseCommandArgs, UsageError } from './args.ts';

const USAGE =
  'winnow export --out FILE.jsonl|FILE.parquet [--db DIR] [--table T] [--version N|TAG] [--taskset NAME] [--where SQL]';

/** Export a table (tasks by default) to JSONL (tasks as Task objects) or Parquet (the stored columns). */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      db: { type: 'string' },
      table: { type: 'string', default: 'tasks' },
      version: { type: 'string' },
      taskset: { type: 'string' },
      where: { type: 'string' },
      out: { type: 'string' },
    },
    USAGE,
  );
  if (!values.out) throw new UsageError(`missing --out\n\nusage: ${USAGE}`);
  const out = resolve(values.out);
  const format = out.endsWith('.parquet')
    ? 'parquet'
    : out.endsWith('.jsonl') || out.endsWith('.ndjson')
      ? 'jsonl'
      : null;
  if (!format) throw new UsageError(`--out must end in .jsonl or .parquet, got ${values.out}`);
  const dbDir = values.db ?? DEFAULT_DB_DIR;
  const conn = await connect(dbDir);
  const table = await openTableIfExists(conn, values.table);
  if (!table)
    throw new UsageError(
      `no table '${values.table}' in ${resolve(dbDir)}; tables: ${(await conn.tableNames()).join(', ') || 'none'}`,
    );
  if (values.version !== undefined)
    await table.checkout(/^\d+$/.test(values.version) ? Number(values.version) : values.version);
  try {
    const filters = [
      values.taskset ? `taskset = ${sqlString(values.taskset)}` : null,
      values.where ?? null,
    ].filter(Boolean);
    let q = table.query();
    if (filters.length > 0) q = q.where(filters.map((f) => `(${f})`).join(' AND '));
    const data = await q.toArrow();
    if (format === 'parquet') {
      await writeParquet(out, localArrowTable(data));
    } else if (values.table === 'tasks' || data.schema.fields.some((f) => f.name === 'content_hash')) {
      await writeJsonl(out, decodeTasks(data));
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
    process.stdout.write(
      `wrote ${data.numRows.toLocaleString('en-US')} rows of '${values.table}' to ${out}\n`,
    );
  } finally {
    if (values.version !== undefined) await table.checkoutLatest();
  }
  return 0;
}
