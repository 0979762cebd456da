import type * as arrow from 'apache-arrow';
import * as aq from 'arquero';
import { UsageError } from '../core/usage-error.ts';
import {
  checkoutChecked,
  defaultTableOf,
  engineError,
  findRun,
  openExisting,
  readableDbDir,
  rowFilter,
} from '../inspect/table-target.ts';
import { reasonClass } from '../operators/step-metrics.ts';
import { type BadCell, badRows, describeBadRow, parseJsonCell } from '../store/bad-cell.ts';
import { connect } from '../store/connection.ts';
import { decodeTaskRows } from '../store/task-table.ts';
import { plainNested } from '../store/typed-columns.ts';
import { parseCommand } from './command-spec.ts';
import { showSimilar } from './inspect-similar.ts';
import { inspectSpec } from './specs/inspect.ts';
import { formatTable } from './table.ts';

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
    // A malformed cell (another tool's row) counts as empty here; the command warns about it.
    const parsed = Array.from(dt.array(col) as ArrayLike<unknown>, (v) => {
      // Typed tables hold features as a map (an Arrow value); older ones as JSON text.
      const p =
        typeof v === 'string'
          ? parseJsonCell(v)
          : v == null
            ? null
            : { ok: true as const, value: plainNested(v) };
      return p?.ok && p.value !== null && typeof p.value === 'object'
        ? (p.value as Record<string, unknown>)
        : {};
    });
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

/** Bad cells of a task-shaped table (JSON features/meta), for the warnings; none for other tables. */
export function taskTableBadCells(data: arrow.Table, tableName: string): BadCell[] {
  const names = new Set(data.schema.fields.map((f) => f.name));
  if (!names.has('features') || !names.has('meta') || !names.has('id')) return [];
  return decodeTaskRows(data, tableName).bad;
}

/** One `warning:` line per row with malformed cells, on stderr. */
export function warnBadRows(bad: readonly BadCell[]): number {
  const rows = badRows(bad);
  for (const cells of rows) process.stderr.write(`warning: ${describeBadRow(cells)}\n`);
  return rows.length;
}

async function listTables(dbDir: string, json: boolean): Promise<number> {
  const conn = await connect(dbDir);
  const tables = [];
  for (const name of await conn.tableNames()) {
    const t = await conn.openTable(name);
    tables.push({
      table: name,
      rows: await t.countRows(),
      version: await t.version(),
      versions: (await t.listVersions()).length,
      tags: Object.keys(await (await t.tags()).list()).length,
    });
  }
  if (json) process.stdout.write(`${JSON.stringify({ db: dbDir, tables }, null, 2)}\n`);
  else if (tables.length === 0) process.stdout.write(`no tables in ${dbDir}\n`);
  else
    process.stdout.write(
      `${formatTable(
        ['table', 'rows', 'version', 'versions', 'tags'],
        tables.map((t) => [t.table, t.rows, t.version, t.versions, t.tags]),
      )}\n`,
    );
  return 0;
}

export async function inspectCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(inspectSpec, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const dbDir = readableDbDir(values.db);
  const named = positionals[0];
  if (named !== undefined && values.table !== undefined && named !== values.table)
    throw new UsageError(`two tables named: '${named}' and --table ${values.table} (give one)`);
  if (values.similar !== undefined) return similar(dbDir, named ?? values.table, values);
  if (values.embedding !== undefined) throw new UsageError('--embedding only goes with --similar ID');
  try {
    const run = values.run !== undefined ? await findRun(dbDir, values.run) : undefined;
    const filtered = run !== undefined || values.taskset !== undefined || values.where !== undefined;
    const tableName = named ?? values.table ?? (filtered ? defaultTableOf(run, 'tasks') : undefined);
    if (tableName === undefined) {
      if (values.version !== undefined)
        throw new UsageError('--version needs --table T (versions belong to a table)');
      return await listTables(dbDir, values.json);
    }
    const table = await openExisting(dbDir, tableName);
    const version = values.version !== undefined ? await checkoutChecked(table, values.version) : undefined;
    try {
      return await showTable(table, {
        dbDir,
        tableName,
        version,
        run,
        limit: values.limit,
        json: values.json,
        flags: values,
      });
    } finally {
      if (version !== undefined) await table.checkoutLatest();
    }
  } catch (err) {
    throw engineError(err, `inspect ${dbDir}`);
  }
}

/** `--similar ID`: nearest neighbours by embedding; row filters and versions do not apply. */
async function similar(
  dbDir: string,
  tableName: string | undefined,
  values: {
    similar?: string | undefined;
    embedding?: string | undefined;
    limit: number;
    json: boolean;
    run?: string | undefined;
    taskset?: string | undefined;
    where?: string | undefined;
    version?: string | undefined;
  },
): Promise<number> {
  if (tableName === undefined)
    throw new UsageError('--similar ID needs a table: winnow inspect TABLE --similar ID');
  const extra = (['run', 'taskset', 'where', 'version'] as const).filter((k) => values[k] !== undefined);
  if (extra.length > 0)
    throw new UsageError(`--similar does not combine with ${extra.map((k) => `--${k}`).join(', ')}`);
  const table = await openExisting(dbDir, tableName);
  try {
    return await showSimilar(table, {
      tableName,
      id: values.similar!,
      limit: values.limit,
      json: values.json,
      column: values.embedding,
    });
  } catch (err) {
    throw engineError(err, `inspect ${dbDir}`);
  }
}

async function showTable(
  table: Awaited<ReturnType<typeof openExisting>>,
  o: {
    dbDir: string;
    tableName: string;
    version: number | undefined;
    run: Awaited<ReturnType<typeof findRun>> | undefined;
    limit: number;
    json: boolean;
    flags: { taskset?: string | undefined; where?: string | undefined };
  },
): Promise<number> {
  const filter = await rowFilter(table, { run: o.run, taskset: o.flags.taskset, where: o.flags.where });
  const data = await (filter ? table.query().where(filter) : table.query()).toArrow();
  const version = o.version ?? (await table.version());
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
  const bad = taskTableBadCells(data, o.tableName);
  warnBadRows(bad);
  const stats = columnStats(data, ['features']);
  const sample = data
    .toArray()
    .slice(0, o.limit)
    .map((r) => r.toJSON());
  const rejected = o.tableName.startsWith('rejected') ? rejectedSummary(data) : undefined;

  const view = {
    table: o.tableName,
    rows: data.numRows,
    version,
    ...(filter ? { filter } : {}),
    schema,
    versions,
    tags,
    stats,
    sample,
    badCells: bad,
    ...(rejected ? { rejected } : {}),
  };
  if (o.json)
    process.stdout.write(`${JSON.stringify(view, (_k, v) => (typeof v === 'bigint' ? Number(v) : v), 2)}\n`);
  else process.stdout.write(`${tableViewLines(view, o.dbDir).join('\n')}\n`);
  return 0;
}

/** `winnow inspect TABLE` as text: the header, schema, versions and tags, column stats, rejections, sample. */
function tableViewLines(
  v: {
    table: string;
    rows: number;
    version: number;
    filter?: string;
    schema: Array<{ name: string; type: string; nullable: boolean }>;
    versions: Array<{ version: number }>;
    tags: Array<{ tag: string; version: number }>;
    stats: ReturnType<typeof columnStats>;
    sample: Record<string, unknown>[];
    rejected?: ReturnType<typeof rejectedSummary>;
  },
  dbDir: string,
): string[] {
  const { schema, versions, tags, stats, sample, rejected } = v;
  const lines = [
    `table '${v.table}' in ${dbDir}: ${v.rows.toLocaleString('en-US')} rows, version ${v.version}${v.filter ? ` (filter: ${v.filter})` : ''}`,
    '',
    'schema:',
    ...schema.map((f) => `  ${f.name}: ${f.type}${f.nullable ? ' (nullable)' : ''}`),
    '',
    `versions (last ${versions.length}): ${versions.map((x) => x.version).join(', ')}`,
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
  if (rejected)
    lines.push(
      '',
      'rejected by step and reason:',
      formatTable(
        ['step', 'reason', 'count'],
        rejected.map((r) => [r.step, r.reason, r.count]),
      ),
    );
  lines.push('', `sample (${sample.length} rows):`);
  for (const row of sample) {
    const short = Object.fromEntries(
      Object.entries(row).map(([k, val]) => [
        k,
        typeof val === 'string' && val.length > 120 ? `${val.slice(0, 120)}…` : val,
      ]),
    );
    lines.push(`  ${JSON.stringify(short, (_k, x) => (typeof x === 'bigint' ? Number(x) : x))}`);
  }
  return lines;
}
