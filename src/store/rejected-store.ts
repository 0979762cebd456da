import type { Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { type Rejected, type RejectedInput, RejectedSchema, truncatePayload } from '../core/rejected.ts';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from './arrow-codec.ts';
import { connect, openOrCreateTable } from './connection.ts';
import { sqlString } from './sql.ts';
import { fitColumns, TIMESTAMP_MS, timeLiteral } from './typed-columns.ts';

const utf8 = new arrow.Utf8();

export const REJECTED_COLUMNS: ColumnSpec<Rejected>[] = [
  { name: 'step', type: utf8, get: (r) => r.step },
  { name: 'reason', type: utf8, get: (r) => r.reason },
  { name: 'file', type: utf8, get: (r) => r.file },
  { name: 'row', type: new arrow.Int32(), get: (r) => r.row },
  { name: 'row_id', type: utf8, get: (r) => r.rowId },
  { name: 'payload', type: utf8, get: (r) => truncatePayload(r.payload) },
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'created_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.createdAt },
];
export const REJECTED_SCHEMA = schemaOf(REJECTED_COLUMNS);

/** The `rejected` table: every row a reader, operator, hook or sampler dropped, with where and why. */
export class RejectedStore {
  readonly table: Table;
  private pending: Rejected[] = [];
  /** The columns as this table stores them (typed, or an older table's layout). */
  private readonly columns: ColumnSpec<Rejected>[];
  private constructor(table: Table, stored: arrow.Schema) {
    this.table = table;
    this.columns = fitColumns(REJECTED_COLUMNS, stored);
  }

  static async open(dbDir?: string, tableName = 'rejected'): Promise<RejectedStore> {
    const conn = await connect(dbDir);
    const table = await openOrCreateTable(conn, tableName, REJECTED_SCHEMA);
    return new RejectedStore(table, await table.schema());
  }

  /** Queue rows; they are committed by `flush` (callers flush per commit, never per row). */
  add(rows: readonly RejectedInput[]): void {
    const now = Date.now();
    for (const r of rows) this.pending.push(RejectedSchema.parse({ createdAt: now, ...r }));
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  async flush(): Promise<number> {
    if (this.pending.length === 0) return 0;
    const rows = this.pending;
    this.pending = [];
    await this.table.add(encodeRows(rows, this.columns));
    return rows.length;
  }

  async read(opts: { runId?: string; limit?: number } = {}): Promise<Rejected[]> {
    let q = this.table.query();
    if (opts.runId) q = q.where(`run_id = ${sqlString(opts.runId)}`);
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    return decodeRows(await q.toArrow(), (c, i) =>
      RejectedSchema.parse({
        step: c.step![i],
        reason: c.reason![i],
        file: c.file![i],
        row: c.row![i],
        rowId: c.row_id![i],
        payload: c.payload![i],
        runId: c.run_id![i],
        createdAt: c.created_at![i] ?? 0,
      }),
    );
  }

  /** Remove one run's rejections recorded after `time` (ms): a resumed run redoes that work and records them again. */
  async deleteRunAfter(runId: string, time: number): Promise<void> {
    await this.flush();
    const createdAt = this.columns.find((c) => c.name === 'created_at');
    await this.table.delete(`run_id = ${sqlString(runId)} AND created_at > ${timeLiteral(createdAt, time)}`);
  }

  /** Remove one run's rejections (a resumed run re-records them from scratch). */
  async deleteRun(runId: string): Promise<void> {
    await this.table.delete(`run_id = ${sqlString(runId)}`);
  }
}
