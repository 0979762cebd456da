import { join, resolve } from 'node:path';
import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { DataError, WinnowError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { ColumnSpec } from './arrow-codec.ts';
import type { BadCell } from './bad-cell.ts';
import { connect, DEFAULT_DB_DIR } from './connection.ts';
import { type EncodedWrite, encodeWrite, type NumberedWrite, numberedTable } from './encoded-write.ts';
import { encodeRowsFast } from './experience-arrow.ts';
import { decodeExperiences, decodePayloads } from './experience-decode.ts';
import { UseJournal } from './experience-journal.ts';
import type { ExperienceSlots } from './experience-slots.ts';
import {
  BOOKKEEPING_COLUMNS,
  EXPERIENCE_COLUMNS,
  encodeExperiences,
  payloadColumns,
  type StoredExperience,
} from './experience-table.ts';
import { openExperienceTable } from './experience-table-open.ts';
import { appendArrow } from './lance-append.ts';
import { leaseMode } from './lease-log.ts';
import { PayloadRows, rowStoreMode } from './payload-rows.ts';
import { learnRowIds, rowIdMismatches } from './row-ids.ts';
import { identityOf, liveSeqs, takeFromRowStore } from './row-store-take.ts';
import { sqlString } from './sql.ts';
import { fitColumns } from './typed-columns.ts';
import { UpkeepRunner, upkeepMode } from './upkeep-runner.ts';

/** A fold rewrites these, matched on (id, seq): a row another writer gave the same seq is left alone. */
const FOLD = ['id', 'seq', 'use_count', 'priority', 'last_used_step', 'last_used_at', 'consumed'];
const RESEQ = ['id', 'seq'];

/** A row that came back from the table under a row id, but is not the row the index has there. */
interface Mismatch {
  slot: number;
  rowId: number;
  gotId: string;
  gotSeq: number;
}

/**
 * The buffer's storage: the LanceDB experience table and its use journal (`<table>_uses`).
 *
 * Rows are fetched by Lance stable row id, which the index predicts for its own appends. A
 * prediction can be wrong (rows deleted before a reopen, or appended by another connection), so
 * every row taken under a predicted row id is checked against the index by `id` and `seq`: a
 * mismatch re-learns the row ids from the table and takes again; a row that still does not match is
 * refused with an error naming the table, the expected id and what came back. A row id read from
 * the table (on open) needs no check: Lance never gives a stable row id to another row. A row is
 * never returned under another row's id.
 */
export class ExperienceStorage {
  readonly name: string;
  readonly table: Table;
  readonly journal: UseJournal;
  readonly stableRowIds: boolean;
  private readonly slots: ExperienceSlots;
  /** The columns as this table stores them (typed, or an older table's text layout). */
  private readonly columns: ColumnSpec<StoredExperience>[];
  private readonly foldColumns: ColumnSpec<StoredExperience>[];
  private readonly reseqColumns: ColumnSpec<StoredExperience>[];
  private nextRowId = 0;
  /** Whether an append since open confirmed the row-id prediction (see `confirmAppend`). */
  private rowIdsChecked = false;
  /**
   * Row ids below this were read from the table (on open), none predicted. Lance never reuses a
   * stable row id and keeps it through compactions and updates, so such a row id names the same
   * row for as long as the row exists: its take needs no identity check (`id`, `seq`).
   */
  private readRowIdsBelow = Number.POSITIVE_INFINITY;
  /** Runs background folds and compactions in a process of their own (null: in this process). */
  private readonly upkeepRunner: UpkeepRunner | null;
  /** Row-major copy of the payload (payload-rows.ts): local tables with the typed layout only. */
  private readonly rows: PayloadRows | null;

  private constructor(
    name: string,
    table: Table,
    journal: UseJournal,
    stable: boolean,
    slots: ExperienceSlots,
    stored: arrow.Schema,
    dir: string,
    rows: PayloadRows | null,
  ) {
    // Only a local folder: another process reaches it by path; a remote store keeps upkeep here.
    const local = !dir.includes('://') && upkeepMode() === 'process';
    this.upkeepRunner = local ? new UpkeepRunner(dir, name) : null;
    this.rows = rows;
    this.columns = fitColumns(EXPERIENCE_COLUMNS, stored);
    this.foldColumns = this.columns.filter((c) => FOLD.includes(c.name));
    this.reseqColumns = this.columns.filter((c) => RESEQ.includes(c.name));
    this.name = name;
    this.table = table;
    this.journal = journal;
    this.stableRowIds = stable;
    this.slots = slots;
  }

  static async open(
    dbDir: string | undefined,
    name: string,
    slots: ExperienceSlots,
  ): Promise<ExperienceStorage> {
    const conn = await connect(dbDir);
    const { table, stable } = await openExperienceTable(conn, name);
    const dir = dbDir ?? DEFAULT_DB_DIR;
    // The lease log is a local file: only for a database folder on this machine.
    const logDir = dir.includes('://') || leaseMode() === 'table' ? null : resolve(dir);
    const journal = await UseJournal.open(conn, `${name}_uses`, logDir);
    const stored = await table.schema();
    // The row store is a local file too, and needs the typed layout and stable row ids.
    const rows =
      !dir.includes('://') && stable && rowStoreMode() === 'on' && PayloadRows.fits(stored)
        ? await PayloadRows.open(join(resolve(dir), `${name}.lance`))
        : null;
    return new ExperienceStorage(name, table, journal, stable, slots, stored, dir, rows);
  }

  /** The index columns of every row, with `_rowid`. */
  async readBookkeeping(extra: readonly string[] = []): Promise<arrow.Table> {
    return this.table
      .query()
      .select([...BOOKKEEPING_COLUMNS, ...extra])
      .withRowId()
      .toArrow();
  }

  /** Row id to record for a row found on load (−1 when the table has no stable row ids). */
  noteLoadedRowId(rowId: number): number {
    if (rowId >= this.nextRowId) this.nextRowId = rowId + 1;
    return this.stableRowIds ? rowId : -1;
  }

  /** Append in one commit; returns the table version. Index the rows with `predictRowId`, then call `confirmAppend`. */
  async append(rows: readonly StoredExperience[]): Promise<number> {
    const data = encodeExperiences(rows, this.columns);
    this.rows?.append(data);
    const res = await this.table.add(data);
    return res.version;
  }

  /** Encode a write call's checked rows as this table stores them, when the call is made (encoded-write.ts). */
  encodeWrite(rows: readonly Experience[]): EncodedWrite {
    return encodeWrite(rows, this.columns);
  }

  /**
   * Append already-encoded calls in one commit (one LanceDB `add` of their batches, in order),
   * giving each row its `seq` and `priority` as numbered. Returns the table version; index the
   * rows as for `append`.
   */
  async appendEncoded(parts: readonly NumberedWrite[]): Promise<number> {
    const data = numberedTable(parts, this.columns, this.name);
    // LanceDB writes the commit on its own threads: copy the payload into the row store meanwhile
    // (this thread would only wait). The row store is a cache: its failure must not fail the write.
    const committed = appendArrow(this.table, data);
    try {
      this.rows?.append(data);
    } catch {
      // Those rows' samples read them from LanceDB.
    }
    return committed;
  }

  /** The stable row id Lance gives the next appended row, if this buffer is the table's only writer. */
  predictRowId(): number {
    if (!this.stableRowIds) return -1;
    if (this.readRowIdsBelow === Number.POSITIVE_INFINITY) this.readRowIdsBelow = this.nextRowId;
    return this.nextRowId++;
  }

  /**
   * Forget the predicted row ids of the indexed rows with seqs `fromSeq`..`toSeq` (appends that
   * landed in another order than they were numbered): their first take reads them back.
   */
  forgetRowIds(fromSeq: number, toSeq: number): void {
    const sl = this.slots;
    for (let seq = fromSeq; seq <= toSeq; seq++) {
      const s = sl.slotOfSeq(seq);
      if (s >= 0) sl.rowId[s] = -1;
    }
  }

  /**
   * The first append after open reads back its first and last row to learn where Lance's row-id
   * counter really stands (rows deleted before a reopen leave a gap the index cannot see).
   */
  async confirmAppend(firstSeq: number, lastSeq: number): Promise<void> {
    if (!this.stableRowIds || this.rowIdsChecked) return;
    const sl = this.slots;
    const pair = [...new Set([sl.slotOfSeq(firstSeq), sl.slotOfSeq(lastSeq)])];
    const bad = await rowIdMismatches(this.table, sl, pair);
    if (bad.length > 0) await this.resolveRowIds(firstSeq);
    this.rowIdsChecked = true;
  }

  /** Learn the row ids of the indexed rows with seq ≥ `fromSeq`, matching each on (id, seq). */
  async resolveRowIds(fromSeq: number): Promise<void> {
    this.nextRowId = Math.max(this.nextRowId, await learnRowIds(this.table, this.slots, fromSeq));
  }

  // ---------------------------------------------------------------- take

  /** Full rows for `slots`, keyed by slot, each checked to be the row the index names. */
  async take(slots: readonly number[]): Promise<Map<number, Experience>> {
    const out = new Map<number, Experience>();
    if (slots.length === 0) return out;
    const sl = this.slots;
    if (this.stableRowIds) {
      const unknown = slots.filter((s) => sl.rowId[s]! < 0);
      if (unknown.length > 0) await this.resolveRowIds(minSeq(sl, unknown));
      if (this.rows) await takeFromRowStore(this.table, this.rows, sl, slots, this.readRowIdsBelow, out);
      const rest = slots.filter((s) => !out.has(s));
      if (rest.length > 0) await this.takeByRowId(rest, out);
      const missing = slots.filter((s) => !out.has(s));
      if (missing.length > 0) {
        // Not found, or another row under the predicted id: learn the ids again and take once more.
        await this.resolveRowIds(minSeq(sl, missing));
        const bad = await this.takeByRowId(missing, out);
        if (bad.length > 0) {
          const b = bad[0]!;
          throw new WinnowError(
            `experience table '${this.name}': row id ${b.rowId} holds id '${b.gotId}' (seq ${b.gotSeq}), expected id '${sl.ids[b.slot]}' (seq ${sl.seq[b.slot]}) even after re-reading the row ids; refusing to return another row's data (was the table rewritten by another process? reopen the buffer)`,
          );
        }
      }
    }
    // No stable row ids (a table made elsewhere), or rows not found by id: fetch by (seq, id).
    await this.takeBySeq(
      slots.filter((s) => !out.has(s)),
      out,
    );
    const lost = slots.filter((s) => !out.has(s));
    if (lost.length > 0)
      throw new DataError({
        file: this.name,
        message: `${lost.length} sampled row(s) are no longer in the table (first: id ${sl.ids[lost[0]!]}); was it changed by another process?`,
      });
    return out;
  }

  /** Full rows of `slots` found by `seq`, kept where the `id` matches too. */
  private async takeBySeq(slots: readonly number[], out: Map<number, Experience>): Promise<void> {
    if (slots.length === 0) return;
    const sl = this.slots;
    const t = await this.table
      .query()
      .where(`seq IN (${slots.map((s) => sl.seq[s]).join(',')})`)
      .toArrow();
    for (const r of decodeExperiences(t)) {
      const s = sl.idToSlot.get(r.exp.id);
      if (s !== undefined && sl.seq[s] === r.seq && slots.includes(s)) out.set(s, r.exp);
    }
  }

  /**
   * Take the payload columns of `slots` by row id (plus `id` and `seq`, to check each row is the
   * one the index names) and complete them from the index. Rows that do not match are left out
   * of `out` and returned.
   */
  private async takeByRowId(slots: readonly number[], out: Map<number, Experience>): Promise<Mismatch[]> {
    const sl = this.slots;
    const byRowId = new Map<number, number>();
    for (const s of slots) if (sl.rowId[s]! >= 0) byRowId.set(sl.rowId[s]!, s);
    if (byRowId.size === 0) return [];
    let flags = 0;
    let predicted = false;
    for (const [rowId, s] of byRowId) {
      flags |= sl.payload[s]!;
      if (rowId >= this.readRowIdsBelow) predicted = true;
    }
    // A scattered take costs about the same per column, so the check's two columns are read only
    // when some row id was predicted rather than read from the table.
    const t = await this.table
      .takeRowIds([...byRowId.keys()].sort((a, b) => a - b))
      .select(predicted ? [...payloadColumns(flags), 'id', 'seq'] : payloadColumns(flags))
      .withRowId()
      .toArrow();
    const bad: Mismatch[] = [];
    const ids = t.getChild('id');
    const seqs = t.getChild('seq');
    const rids = t.getChild('_rowid');
    const good = new Set<number>();
    for (let i = 0; i < t.numRows; i++) {
      const rowId = Number(rids?.get(i));
      const s = byRowId.get(rowId);
      if (s === undefined) continue;
      if (rowId < this.readRowIdsBelow) {
        good.add(rowId);
        continue;
      }
      const gotId = String(ids?.get(i));
      const gotSeq = Number(seqs?.get(i));
      if (gotId === sl.ids[s] && gotSeq === sl.seq[s]) good.add(rowId);
      else bad.push({ slot: s, rowId, gotId, gotSeq });
    }
    for (const [rowId, exp] of decodePayloads(t, (r) => identityOf(sl, byRowId.get(r)!)))
      if (good.has(rowId)) out.set(byRowId.get(rowId)!, exp);
    return bad;
  }

  // ---------------------------------------------------------------- delete / fold / compact

  /** Delete the rows of `slots` (one commit), by row id once each is verified, else by (seq, id). */
  async remove(slots: readonly number[]): Promise<void> {
    const sl = this.slots;
    let byRowId = this.stableRowIds && slots.every((s) => sl.rowId[s]! >= 0);
    if (byRowId && (await rowIdMismatches(this.table, sl, slots)).length > 0) {
      await this.resolveRowIds(minSeq(sl, slots));
      byRowId = (await rowIdMismatches(this.table, sl, slots)).length === 0;
    }
    await this.table.delete(
      byRowId
        ? `_rowid IN (${slots.map((s) => sl.rowId[s]).join(',')})`
        : `seq IN (${slots.map((s) => sl.seq[s]).join(',')}) AND id IN (${slots.map((s) => sqlString(sl.ids[s]!)).join(',')})`,
    );
    // The evicted rows' records stay in the row store until most of it is dead (payload-rows.ts).
    // (The index drops `slots` right after this call.)
    const gone = new Set(slots);
    this.rows?.shrink(sl.live - gone.size, () => liveSeqs(sl, gone));
  }

  /** Delete rows by row id (rows that are not in the index: quarantined on load). */
  async removeRowIds(rowIds: readonly number[]): Promise<void> {
    if (rowIds.length > 0) await this.table.delete(`_rowid IN (${rowIds.join(',')})`);
  }

  /** Full rows (every column) at these row ids, for the record of a quarantined row. */
  async readRowIds(rowIds: readonly number[]): Promise<Map<number, StoredExperience>> {
    const t = await this.table.takeRowIds(rowIds).withRowId().toArrow();
    const rids = t.getChild('_rowid');
    const bad: BadCell[] = [];
    const rows = decodeExperiences(t, { bad });
    if (bad.length === 0) return new Map(rows.map((r, i) => [Number(rids?.get(i)), r]));
    // Some row cannot be decoded: row by row, leaving it out (its record names only its id and seq).
    const out = new Map<number, StoredExperience>();
    for (let i = 0; i < t.numRows; i++) {
      const [r] = decodeExperiences(t.slice(i, i + 1), { bad: [] });
      if (r) out.set(Number(rids?.get(i)), r);
    }
    return out;
  }

  /** Give rows (matched by id, which must be unique in the table) new seqs, in one commit. */
  async reseq(rows: readonly { id: string; seq: number }[]): Promise<void> {
    if (rows.length === 0) return;
    const stored = rows.map((r) => ({ exp: { id: r.id }, seq: r.seq }) as unknown as StoredExperience);
    await this.table
      .mergeInsert('id')
      .whenMatchedUpdateAll()
      .execute(encodeRowsFast(stored, this.reseqColumns));
  }

  /**
   * Write acknowledged use state into the table's columns (one commit). `background`: from the
   * upkeep process, so the samples beside it do not wait on this process's LanceDB threads.
   */
  async fold(rows: readonly StoredExperience[], opts: { background?: boolean } = {}): Promise<void> {
    if (rows.length === 0) return;
    const data = encodeRowsFast(rows, this.foldColumns);
    if (opts.background && this.upkeepRunner) return this.upkeepRunner.fold(data);
    await this.table.mergeInsert(['id', 'seq']).whenMatchedUpdateAll().execute(data);
  }

  /** Merge small fragments and drop versions older than `cleanupOlderThan` (`background`: as for `fold`). */
  async optimize(cleanupOlderThan: Date, opts: { background?: boolean } = {}): Promise<void> {
    if (opts.background && this.upkeepRunner) return this.upkeepRunner.optimize(cleanupOlderThan);
    await this.table.optimize({ cleanupOlderThan });
  }

  /** Start the upkeep process ahead of the first background job (the table has grown large). */
  warmUpkeep(): void {
    this.upkeepRunner?.warm();
  }

  /** Stop the upkeep process, if one was started, and close the row store (the buffer closes). */
  stopUpkeep(): void {
    this.upkeepRunner?.stop();
    this.rows?.close();
  }

  version(): Promise<number> {
    return this.table.version();
  }
}

function minSeq(sl: ExperienceSlots, slots: readonly number[]): number {
  let m = Number.POSITIVE_INFINITY;
  for (const s of slots) m = Math.min(m, sl.seq[s]!);
  return m;
}
