import type { Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import type { DedupIndexEntry, DedupIndexStore } from '../operators/task/dedup-index.ts';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from './arrow-codec.ts';
import { connect, openOrCreateTable } from './connection.ts';
import { sqlString } from './sql.ts';
import { fitColumns, TIMESTAMP_MS } from './typed-columns.ts';

interface Row extends DedupIndexEntry {
  index: string;
  createdAt: number;
}

/** A signature as base64 of its little-endian uint32 bytes: compact, and a plain Utf8 column. */
function encodeSignature(sig: readonly number[]): string {
  return Buffer.from(Uint32Array.from(sig).buffer).toString('base64');
}

function decodeSignature(s: string): number[] {
  const bytes = Buffer.from(s, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return Array.from(new Uint32Array(copy.buffer, 0, copy.length >> 2));
}

const TABLE = 'dedup_index';
const utf8 = new arrow.Utf8();
const f64 = new arrow.Float64();
const COLUMNS: ColumnSpec<Row>[] = [
  { name: 'index_name', type: utf8, get: (r) => r.index },
  { name: 'key', type: f64, get: (r) => r.key },
  { name: 'check', type: f64, get: (r) => r.check },
  { name: 'signature', type: utf8, get: (r) => encodeSignature(r.signature) },
  { name: 'taskset', type: utf8, get: (r) => r.taskset },
  { name: 'task_id', type: utf8, get: (r) => r.taskId },
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'created_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.createdAt },
];

/**
 * The persisted dedup index (table `dedup_index`, one row per recorded task, named indexes side by
 * side): exact-key hashes and MinHash signatures with the task they came from, so a later run or
 * another dataset is checked against what earlier runs kept. Texts are not stored.
 */
export class LanceDedupIndexStore implements DedupIndexStore {
  readonly dbDir: string | undefined;
  private table: Table | null = null;
  private columns: ColumnSpec<Row>[] | null = null;
  private readonly deferWrites: boolean;
  private pending: Array<{ name: string; entries: DedupIndexEntry[] }> = [];

  /**
   * Opens nothing: reading a missing table gives no entries, and only a write creates it. With
   * `deferWrites`, `append` only collects: a task pipeline calls `landPending` once its tasks have
   * landed, so a failed run records nothing.
   */
  constructor(dbDir?: string, opts: { deferWrites?: boolean } = {}) {
    this.dbDir = dbDir;
    this.deferWrites = opts.deferWrites ?? false;
  }

  async read(name: string): Promise<DedupIndexEntry[]> {
    const conn = await connect(this.dbDir);
    if (this.table === null && !(await conn.tableNames()).includes(TABLE)) return [];
    this.table ??= await openOrCreateTable(conn, TABLE, schemaOf(COLUMNS));
    const t = await this.table
      .query()
      .where(`index_name = ${sqlString(name)}`)
      .toArrow();
    const rows = decodeRows(t, (c, i) => ({
      key: Number(c.key![i]),
      check: Number(c.check![i]),
      signature: decodeSignature(String(c.signature![i])),
      taskset: String(c.taskset![i]),
      taskId: String(c.task_id![i]),
      runId: String(c.run_id![i]),
      createdAt: Number(c.created_at![i] ?? 0),
    }));
    // Oldest first, so the first recorder of a text is the one named.
    rows.sort((a, b) => a.createdAt - b.createdAt);
    return rows.map(({ createdAt: _, ...e }) => e);
  }

  async append(name: string, entries: readonly DedupIndexEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.deferWrites) this.pending.push({ name, entries: [...entries] });
    else await this.write(name, entries);
  }

  /** Write what deferred appends collected; returns the number of entries written. */
  async landPending(): Promise<number> {
    const pending = this.pending;
    this.pending = [];
    let n = 0;
    for (const p of pending) {
      await this.write(p.name, p.entries);
      n += p.entries.length;
    }
    return n;
  }

  private async write(name: string, entries: readonly DedupIndexEntry[]): Promise<void> {
    const createdAt = Date.now();
    this.table ??= await openOrCreateTable(await connect(this.dbDir), TABLE, schemaOf(COLUMNS));
    // An index written before the typed layout keeps its float-millisecond times.
    this.columns ??= fitColumns(COLUMNS, await this.table.schema());
    await this.table.add(
      encodeRows(
        entries.map((e) => ({ ...e, index: name, createdAt })),
        this.columns,
      ),
    );
  }
}
