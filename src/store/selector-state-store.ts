import type { Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from './arrow-codec.ts';
import { connect, openOrCreateTable } from './connection.ts';
import { sqlString } from './sql.ts';
import { fitColumns, TIMESTAMP_MS } from './typed-columns.ts';

/** One saved selector state: which run, after which explorer step, and the state as JSON. */
export interface SelectorStateRecord {
  runId: string;
  step: number;
  selector: string;
  state: string;
  createdAt: number;
}

const utf8 = new arrow.Utf8();
const COLUMNS: ColumnSpec<SelectorStateRecord>[] = [
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'step', type: new arrow.Int32(), get: (r) => r.step },
  { name: 'selector', type: utf8, get: (r) => r.selector },
  // Opaque checkpoint text, not JSON-typed: Lance's binary JSON reorders object keys, and a
  // selector's state must come back byte for byte for a resume to be exact.
  { name: 'state', type: utf8, get: (r) => r.state },
  { name: 'created_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.createdAt },
];

/**
 * Selector checkpoints in the database, next to the tasks they index (table `selector_states`),
 * so a task set and the posterior learned over it travel together.
 */
export class SelectorStateStore {
  readonly table: Table;
  /** The columns as this table stores them (typed, or an older table's layout). */
  private readonly columns: ColumnSpec<SelectorStateRecord>[];
  private constructor(table: Table, stored: arrow.Schema) {
    this.table = table;
    this.columns = fitColumns(COLUMNS, stored);
  }

  static async open(dbDir?: string): Promise<SelectorStateStore> {
    const conn = await connect(dbDir);
    const table = await openOrCreateTable(conn, 'selector_states', schemaOf(COLUMNS));
    return new SelectorStateStore(table, await table.schema());
  }

  /** Save (or replace) the state of `runId` at `step`. */
  async put(record: SelectorStateRecord): Promise<void> {
    await this.table
      .mergeInsert(['run_id', 'step'])
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute(encodeRows([record], this.columns));
  }

  /** Delete `runId`'s states after explorer step `step` (all of them for 0); no other run's rows. */
  async deleteRunAfter(runId: string, step: number): Promise<void> {
    await this.table.delete(`run_id = ${sqlString(runId)} AND step > ${Math.trunc(step)}`);
  }

  async get(runId: string, step: number): Promise<SelectorStateRecord | undefined> {
    const t = await this.table
      .query()
      .where(`run_id = ${sqlString(runId)} AND step = ${Math.trunc(step)}`)
      .toArrow();
    return decodeRows(t, (c, i) => ({
      runId: String(c.run_id![i]),
      step: Number(c.step![i]),
      selector: String(c.selector![i]),
      state: String(c.state![i]),
      createdAt: Number(c.created_at![i] ?? 0),
    }))[0];
  }
}
