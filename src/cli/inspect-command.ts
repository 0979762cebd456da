import type * as arrow from 'apache-arrow';
import * as aq from 'arquero';
import { connect, DEFAULT_DB_DIR, openTableIfExists } from '../buffer/connection.ts';
import { reasonClass } from '../operators/step-metrics.ts';
import { intOption, parseCommandArgs, UsageError } from './args.ts';
import { formatTable } from './table.ts';

const USAGE = 'winnow inspect [--db DIR] [--table T] [--version N|TAG] [--limit N] [--json]';

export interface ColumnStats {
  column: string;
  type: string;
  valid: number;
  nulls: number;
  distinct: number;
  min?: number;
  max?: number;
  mean?: number;
  sd?: number;
  meanLength?: number;
}

/** Per-column statistics computed with arquero (a columnar dataframe library), not hand-rolled loops. */
export function columnStats(table: arrow.Table, expandJson: readonly string[] = []): ColumnStats[] {
  // arquero reads Arrow tables by duck typing, so LanceDB's (CommonJS apache-arrow) table goes in as is.
  let dt = aq.fromArrow(table as unknown as Parameters<typeof aq.fromArrow>[0]);
  // JSON bag columns (features, meta) are expanded into one column per numeric key.
  for (const col of expandJson) {
    if (!dt.columnNames().includes(col)) continue;
    const parsed = Array.from(dt.array(col) as ArrayLike<unknown>, (v) =>
      typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : {},
    );
    const keys = new Set<string>();
    for (const obj of parsed)
      for (const [k, v] of Object.entries(obj)) if (typeof v === 'number') keys.add(k);
    const cols: Record<string, unknown[]> = {};
    for (const k of [...keys].sort())
      cols[`${col}.${k}`] = parsed.map((o) => (typeof o[k] === 'number' ? o[k] : null));
    if (keys.size > 0) dt = dt.assign(aq.table(cols));
  }
  const stats: ColumnStats[] = [];
  for (const name of dt.columnNames()) {
    const values = dt.array(name) as ArrayLike<unknown>;
    const sample = Array.prototype.find.call(values, (v: unknown) => v !== null && v !== undefined);
    const type =
      sample === undefined
        ? 'null'
        : ArrayBuffer.isView(sample) || Array.isArray(sample)
          ? 'list'
          : typeof sample;
    const base = dt.rollup({ valid: aq.op.valid(name), distinct: aq.op.distinct(name) }).object() as {
      valid: number;
      distinct: number;
    };
    const s: ColumnStats = {
      column: name,
      type,
      valid: base.valid,
      nulls: dt.numRows() - base.valid,
      distinct: base.distinct,
    };
    if (type === 'number') {
      const r = dt
        .rollup({ min: aq.op.min(name), max: aq.op.max(name), mean: aq.op.mean(name), sd: aq.op.stdev(name) })
        .object() as Record<string, number>;
      Object.assign(s, r);
    } else if (type === 'string') {
      const r = dt
        .params({ name })
        .derive({
          len: (d: Record<string, string | null>, $: { name: string }) => aq.op.length(d[$.name] ?? ''),
        })
        .rollup({ meanLength: aq.op.mean('len') })
        .object() as { meanLength: number };
      s.meanLength = r.meanLength;
    }
    stats.push(s);
  }
  return stats;
}

/** Rejected rows grouped by step and reason class, largest first (arquero groupby/count). */
export function rejectedSummary(table: arrow.Table): Array<{ step: string; reason: string; count: number }> {
  if (table.numRows === 0) return [];
  const dt = aq.fromArrow(table as unknown as Parameters<typeof aq.fromArrow>[0]).select('step', 'reason');
  const classes = Array.from(dt.array('reason') as ArrayLike<unknown>, (r) => reasonClass(String(r)));
  return dt
    .assign({ reason: classes })
    .groupby('step', 'reason')
    .count()
    .orderby(aq.desc('count'), 'step')
    .objects() as Array<{ step: string; reason: string; count: number }>;
}

export async function inspectCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      db: { type: 'string' },
      table: { type: 'string' },
      version: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    USAGE,
  );
  const dbDir = values.db ?? DEFAULT_DB_DIR;
  const conn = await connect(dbDir);
  const out = values.json ? (x: unknown) => process.stdout.write(`${JSON.stringify(x, null, 2)}\n`) : null;

  if (!values.table) {
    const names = await conn.tableNames();
    const tables = [];
    for (const name of names) {
      const t = await conn.openTable(name);
      const versions = await t.listVersions();
      const tags = await (await t.tags()).list();
      tables.push({
        table: name,
        rows: await t.countRows(),
        version: await t.version(),
        versions: versions.length,
        tags: Object.keys(tags).length,
      });
    }
    if (out) out({ db: dbDir, tables });
    else {
      if (tables.length === 0) process.stdout.write(`no tables in ${dbDir}\n`);
      else
        process.stdout.write(
          `${formatTable(
            ['table', 'rows', 'version', 'versions', 'tags'],
            tables.map((t) => [t.table, t.rows, t.version, t.versions, t.tags]),
          )}\n`,
        );
    }
    return 0;
  }

  const table = await openTableIfExists(conn, values.table);
  if (!table) {
    throw new UsageError(
      `no table '${values.table}' in ${dbDir}; tables: ${(await conn.tableNames()).join(', ') || 'none'}`,
    );
  }
  if (values.version !== undefined) {
    const v = /^\d+$/.test(values.version) ? Number(values.version) : values.version;
    await table.checkout(v);
  }
  const limit = intOption(values.limit, 'limit') ?? 5;
  const data = await table.query().toArrow();
  const schema = data.schema.fields.map((f) => ({
    name: f.name,
    type: String(f.type),
    nullable: f.nullable,
  }));
  const versions = (await table.listVersions())
    .slice(-10)
    .map((v) => ({ version: v.version, timestamp: v.timestamp.toISOString() }));
  const tags = Object.entries(await (await table.tags()).list()).map(([tag, c]) => ({
    tag,
    version: c.version,
  }));
  const stats = columnStats(data, ['features']);
  const sample = data
    .toArray()
    .slice(0, limit)
    .map((r) => r.toJSON());
  const rejected = values.table.startsWith('rejected') ? rejectedSummary(data) : undefined;
  if (values.version !== undefined) await table.checkoutLatest();

  if (out) {
    out({
      table: values.table,
      rows: data.numRows,
      version: await table.version(),
      schema,
      versions,
      tags,
      stats,
      sample,
      ...(rejected ? { rejected } : {}),
    });
    return 0;
  }
  const lines = [
    `table '${values.table}' in ${dbDir}: ${data.numRows.toLocaleString('en-US')} rows, version ${await table.version()}`,
    '',
    'schema:',
    ...schema.map((f) => `  ${f.name}: ${f.type}${f.nullable ? ' (nullable)' : ''}`),
    '',
    `versions (last ${versions.length}): ${versions.map((v) => v.version).join(', ')}`,
    `tags: ${tags.length === 0 ? 'none' : tags.map((t) => `${t.tag}→v${t.version}`).join(', ')}`,
    '',
    'column stats:',
    formatTable(
      ['column', 'type', 'valid', 'nulls', 'distinct', 'min', 'max', 'mean', 'sd', 'mean len'],
      stats.map((s) => [
        s.column,
        s.type,
        s.valid,
        s.nulls,
        s.distinct,
        s.min,
        s.max,
        s.mean,
        s.sd,
        s.meanLength,
      ]),
    ),
  ];
  if (rejected) {
    lines.push(
      '',
      'rejected by step and reason:',
      formatTable(
        ['step', 'reason', 'count'],
        rejected.map((r) => [r.step, r.reason, r.count]),
      ),
    );
  }
  lines.push('', `sample (${sample.length} rows):`);
  for (const row of sample) {
    const short = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        typeof v === 'string' && v.length > 120 ? `${v.slice(0, 120)}…` : v,
      ]),
    );
    lines.push(`  ${JSON.stringify(short, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
