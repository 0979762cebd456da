import { join } from 'node:path';
import type { Connection, Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import type { ColumnSpec } from '../../store/arrow-codec.ts';
import { schemaOf } from '../../store/arrow-codec.ts';
import { openOrCreateTable } from '../../store/connection.ts';
import { encodeRowsFast } from './experience-arrow.ts';
import { LEASE_LOG_FILE, LeaseLog } from './lease-log.ts';

/**
 * The use journal (`<table>_uses`): an append-only log of what `sample` handed out and what the
 * trainer acknowledged. Appending 256 small rows costs a few milliseconds whatever the size of the
 * experience table, whereas rewriting 256 rows of a 1M-row table costs seconds — so deliveries are
 * made durable here first and folded into the experience table's columns in bulk.
 *
 * - `use`  — experience `seq` was delivered for train step `step` (a lease until acknowledged);
 * - `skip` — experience `seq` was skipped at `step` (e.g. too stale) and will not be delivered;
 * - `ack`  — every `use`/`skip` with a step ≤ `step` is acknowledged (the trainer's checkpoint has it).
 */
export type JournalKind = 'use' | 'skip' | 'ack';

export interface JournalEntry {
  kind: JournalKind;
  seq: number;
  id: string;
  step: number;
  at: number;
  reason: string;
}

const utf8 = new arrow.Utf8();
const COLUMNS: ColumnSpec<JournalEntry>[] = [
  { name: 'kind', type: utf8, get: (e) => e.kind },
  { name: 'seq', type: new arrow.Float64(), get: (e) => e.seq },
  { name: 'id', type: utf8, get: (e) => e.id },
  { name: 'step', type: new arrow.Int32(), get: (e) => e.step },
  { name: 'at', type: new arrow.Float64(), get: (e) => e.at },
  { name: 'reason', type: utf8, get: (e) => e.reason },
];
export const JOURNAL_SCHEMA = schemaOf(COLUMNS);

/**
 * Where the entries live: appends go to a lease log on the local disk (lease-log.ts) when the
 * database is a local folder, else to the LanceDB table `<table>_uses`. Reads and deletes cover
 * both, so a journal written before the lease log (entries in the table) replays the same.
 */
export class UseJournal {
  readonly table: Table;
  /** The local lease log (null: a remote database; appends are LanceDB commits). */
  readonly log: LeaseLog | null;
  /** A compaction running in the background (appends go on beside it; deletes and reads wait). */
  private compacting: Promise<void> | null = null;
  private compactError: unknown = null;
  /** Whether the table may hold entries (appended to it, or by a buffer before the lease log). */
  private tableEntries: boolean;
  private constructor(table: Table, log: LeaseLog | null, tableEntries: boolean) {
    this.table = table;
    this.log = log;
    this.tableEntries = tableEntries;
  }

  /**
   * Merge the journal's small fragments and drop versions older than `cleanupOlderThan`, without
   * making the caller wait: a lease commit (an append) may run beside it, since Lance rebases an
   * append onto a compaction. Deletes and reads wait for it (`settle`); so does the next compaction.
   */
  compactInBackground(cleanupOlderThan: Date): void {
    if (this.compacting) return;
    this.compacting = this.table
      .optimize({ cleanupOlderThan })
      .then(
        () => undefined,
        (err: unknown) => {
          this.compactError = err;
        },
      )
      .finally(() => {
        this.compacting = null;
      });
  }

  /**
   * Wait for a background compaction. A failed one leaves the journal as it was (a Lance commit is
   * atomic), so only `rethrow` callers (an explicit compact or close) hear of it, once.
   */
  async settle(opts: { rethrow?: boolean } = {}): Promise<void> {
    if (this.compacting) await this.compacting;
    if (!opts.rethrow) return;
    const err = this.compactError;
    this.compactError = null;
    if (err) throw err;
  }

  /** `localDir`: the database folder when it is on the local disk (the lease log lives there). */
  static async open(conn: Connection, name: string, localDir: string | null = null): Promise<UseJournal> {
    const table = await openOrCreateTable(conn, name, JOURNAL_SCHEMA);
    // The log sits in the table's own folder, so dropping the table (run removal, gc) removes it too.
    const log = localDir === null ? null : new LeaseLog(join(localDir, `${name}.lance`, LEASE_LOG_FILE));
    return new UseJournal(table, log, log === null || (await table.countRows()) > 0);
  }

  /** One durable append: a line of the lease log, flushed to disk, or one LanceDB commit. */
  async append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.log) return this.log.append(entries);
    await this.table.add(encodeRowsFast(entries, COLUMNS));
  }

  /** Every entry: the table's, then the lease log's (replay does not depend on the order). */
  async readAll(): Promise<JournalEntry[]> {
    const logged = this.log ? await this.log.readAll() : [];
    if (!this.tableEntries) return logged;
    return [...(await this.readTable()), ...logged];
  }

  private async readTable(): Promise<JournalEntry[]> {
    await this.settle();
    const t = await this.table.query().toArrow();
    const kind = t.getChild('kind');
    const seq = t.getChild('seq');
    const id = t.getChild('id');
    const step = t.getChild('step');
    const at = t.getChild('at');
    const reason = t.getChild('reason');
    const out: JournalEntry[] = new Array(t.numRows);
    for (let i = 0; i < t.numRows; i++)
      out[i] = {
        kind: String(kind?.get(i)) as JournalKind,
        seq: Number(seq?.get(i)),
        id: String(id?.get(i) ?? ''),
        step: Number(step?.get(i)),
        at: Number(at?.get(i) ?? 0),
        reason: String(reason?.get(i) ?? ''),
      };
    return out;
  }

  /** After a fold through `step`: drop the folded entries, keeping the newest ack marker. */
  async trimThrough(step: number): Promise<void> {
    await this.drop(
      (e) => (e.kind !== 'ack' && e.step <= step) || (e.kind === 'ack' && e.step < step),
      `(kind <> 'ack' AND step <= ${step}) OR (kind = 'ack' AND step < ${step})`,
      (kind, s) => (kind === 'use' ? s > step : s >= step),
    );
  }

  /** Roll back: drop every lease and skip given out for a step after `step`. */
  async dropAfter(step: number): Promise<void> {
    await this.drop(
      (e) => e.kind !== 'ack' && e.step > step,
      `kind <> 'ack' AND step > ${step}`,
      (kind, s) => kind === 'ack' || s <= step,
    );
  }

  /** Drop the entries of one sample call (it failed after its journal commit). */
  async dropEntries(step: number, seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    const set = new Set(seqs);
    await this.drop(
      (e) => e.kind !== 'ack' && e.step === step && set.has(e.seq),
      `kind <> 'ack' AND step = ${step} AND seq IN (${seqs.join(',')})`,
      (kind, s) => (kind === 'ack' || s !== step ? true : undefined),
    );
  }

  async count(): Promise<number> {
    const logged = this.log ? (await this.log.readAll()).length : 0;
    if (!this.tableEntries) return logged;
    await this.settle();
    return logged + (await this.table.countRows());
  }

  /**
   * Delete the entries `match` accepts from the lease log (and `where` from the table). `keepLine`
   * decides whole lease log lines by their kind and step where it can (lease-log.ts).
   */
  private async drop(
    match: (e: JournalEntry) => boolean,
    where: string,
    keepLine: (kind: 'use' | 'ack', step: number) => boolean | undefined,
  ): Promise<void> {
    if (this.log) await this.log.retain((e) => !match(e), keepLine);
    if (!this.tableEntries) return;
    await this.settle();
    await this.table.delete(where);
  }
}
