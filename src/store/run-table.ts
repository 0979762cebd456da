import { existsSync } from 'node:fs';
import type { Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { z } from 'zod';
import { WinnowError } from '../core/errors.ts';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from './arrow-codec.ts';
import { connect, openOrCreateTable } from './connection.ts';
import { sqlString } from './sql.ts';
import { fitColumns, JSON_EXTENSION, TIMESTAMP_MS } from './typed-columns.ts';

/** One record per run (task pipeline or RFT run): what ran, with which config and seed, and how it ended. */
export const RunRecordSchema = z.object({
  runId: z.string(),
  kind: z.string(),
  name: z.string(),
  configHash: z.string(),
  seed: z.number().int(),
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  startedAt: z.number(),
  finishedAt: z.number(),
  tableVersion: z.number().int(),
  /** JSON: counts and per-step metrics. */
  summary: z.string(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

const utf8 = new arrow.Utf8();
const COLUMNS: ColumnSpec<RunRecord>[] = [
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'kind', type: utf8, get: (r) => r.kind },
  { name: 'name', type: utf8, get: (r) => r.name },
  { name: 'config_hash', type: utf8, get: (r) => r.configHash },
  // float64 holds every seed a config takes (any safe integer) exactly; tables made before kept int32.
  { name: 'seed', type: new arrow.Float64(), get: (r) => r.seed },
  { name: 'status', type: utf8, get: (r) => r.status },
  { name: 'started_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.startedAt },
  { name: 'finished_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.finishedAt },
  { name: 'table_version', type: new arrow.Int32(), get: (r) => r.tableVersion },
  { name: 'summary', type: utf8, metadata: JSON_EXTENSION, get: (r) => r.summary },
];
const SCHEMA = schemaOf(COLUMNS);

/** The part of a run record fixed at its start. */
export type RunIdentity = Pick<RunRecord, 'runId' | 'kind' | 'name' | 'configHash' | 'seed'>;

/** Records one run's life in the `runs` table: started, then completed or failed, with a summary. */
export class RunRecorder {
  private readonly table: RunTable;
  private readonly identity: RunIdentity;
  private readonly startedAt: number;
  /** Fields every summary carries (run folder, buffer table, process), merged under each mark's own. */
  private readonly fixed: Record<string, unknown>;
  constructor(
    table: RunTable,
    identity: RunIdentity,
    opts: { startedAt?: number; fixed?: Record<string, unknown> } = {},
  ) {
    this.table = table;
    this.identity = identity;
    this.startedAt = opts.startedAt ?? Date.now();
    this.fixed = opts.fixed ?? {};
  }

  /** Write the record with a status; `summary` is stored as JSON. */
  mark(status: RunRecord['status'], tableVersion: number, summary: unknown = {}): Promise<void> {
    return this.table.put({
      ...this.identity,
      status,
      startedAt: this.startedAt,
      finishedAt: status === 'running' ? 0 : Date.now(),
      tableVersion,
      summary: JSON.stringify({ ...this.fixed, ...(summary as Record<string, unknown>) }),
    });
  }
}

export class RunTable {
  readonly table: Table;
  /** The columns as this table stores them (typed, or an older table's layout). */
  private readonly columns: ColumnSpec<RunRecord>[];
  private constructor(table: Table, stored: arrow.Schema) {
    this.table = table;
    this.columns = fitColumns(COLUMNS, stored);
  }

  /** Every run recorded in `dbDir`, without creating anything (an empty list where there is no table). */
  static async readAll(dbDir: string): Promise<RunRecord[]> {
    return (await RunTable.existing(dbDir))?.list() ?? [];
  }

  /** The database's `runs` table, or null where there is none; creates nothing. */
  private static async existing(dbDir: string): Promise<RunTable | null> {
    if (!dbDir.includes('://') && !existsSync(dbDir)) return null;
    const conn = await connect(dbDir);
    if (!(await conn.tableNames()).includes('runs')) return null;
    const table = await conn.openTable('runs');
    return new RunTable(table, await table.schema());
  }

  /**
   * Validation before a run acts: throws (checkSeed) when the database's `runs` table cannot record
   * `seed` exactly. Reads only: a missing table or folder is created later, with float64 seeds.
   */
  static async checkSeedIn(dbDir: string, seed: number): Promise<void> {
    if ((seed | 0) === seed) return; // fits either layout
    (await RunTable.existing(dbDir))?.checkSeed(seed);
  }

  static async open(dbDir?: string): Promise<RunTable> {
    const conn = await connect(dbDir);
    const table = await openOrCreateTable(conn, 'runs', SCHEMA);
    return new RunTable(table, await table.schema());
  }

  /**
   * Refuse a seed this table cannot record exactly: a `runs` table made before seeds were float64
   * stores them as int32, where a wider seed would be recorded wrapped (and `winnow runs` would show
   * a seed that does not reproduce the run).
   */
  checkSeed(seed: number): void {
    const column = this.columns.find((c) => c.name === 'seed');
    if (!column || !arrow.DataType.isInt(column.type) || (seed | 0) === seed) return;
    throw new WinnowError(
      `table 'runs' stores seeds as 32-bit integers (made by an older Winnow): seed ${seed} would be recorded wrapped; use a seed within ±2^31, or another database folder (--db)`,
    );
  }

  /** Insert or replace the record of a run. */
  async put(record: RunRecord): Promise<void> {
    this.checkSeed(record.seed);
    await this.table
      .mergeInsert('run_id')
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute(encodeRows([record], this.columns));
  }

  async delete(runId: string): Promise<void> {
    await this.table.delete(`run_id = ${sqlString(runId)}`);
  }

  async list(): Promise<RunRecord[]> {
    return this.decode(await this.table.query().toArrow());
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const rows = this.decode(
      await this.table
        .query()
        .where(`run_id = ${sqlString(runId)}`)
        .toArrow(),
    );
    return rows[0];
  }

  private decode(t: arrow.Table): RunRecord[] {
    return decodeRows(t, (c, i) =>
      RunRecordSchema.parse({
        runId: c.run_id![i],
        kind: c.kind![i],
        name: c.name![i],
        configHash: c.config_hash![i],
        seed: c.seed![i],
        status: c.status![i],
        startedAt: c.started_at![i] ?? 0,
        finishedAt: c.finished_at![i] ?? 0,
        tableVersion: c.table_version![i],
        summary: c.summary![i],
      }),
    ).sort((a, b) => a.startedAt - b.startedAt);
  }
}
