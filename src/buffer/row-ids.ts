import type { Table } from '@lancedb/lancedb';
import type { ExperienceSlots } from './experience-slots.ts';

/**
 * Reading Lance stable row ids back from the experience table, for the storage's row-id
 * predictions (experience-storage.ts): rows are matched to the index on (id, seq).
 */

/** Slots whose row is not at its predicted row id (missing, or another row is there). */
export async function rowIdMismatches(
  table: Table,
  sl: ExperienceSlots,
  slots: readonly number[],
): Promise<number[]> {
  const t = await table
    .takeRowIds(slots.map((s) => sl.rowId[s]!))
    .select(['id', 'seq'])
    .withRowId()
    .toArrow();
  const ok = new Set<number>();
  const ids = t.getChild('id');
  const seqs = t.getChild('seq')?.toArray() as ArrayLike<number>;
  const rids = t.getChild('_rowid')?.toArray() as ArrayLike<bigint>;
  for (let i = 0; i < t.numRows; i++) {
    const s = sl.idToSlot.get(String(ids?.get(i)));
    if (s !== undefined && sl.seq[s] === seqs[i] && sl.rowId[s] === Number(rids[i])) ok.add(s);
  }
  return slots.filter((s) => !ok.has(s));
}

/**
 * Set the row id of every indexed row with seq ≥ `fromSeq` found in the table (matched on id and
 * seq); returns one past the highest row id seen there (0 when none), where Lance's counter stands.
 */
export async function learnRowIds(table: Table, sl: ExperienceSlots, fromSeq: number): Promise<number> {
  const t = await table.query().where(`seq >= ${fromSeq}`).select(['id', 'seq']).withRowId().toArrow();
  const ids = t.getChild('id');
  const seq = t.getChild('seq')?.toArray() as ArrayLike<number>;
  const rid = t.getChild('_rowid')?.toArray() as ArrayLike<bigint>;
  let next = 0;
  for (let i = 0; i < t.numRows; i++) {
    const s = sl.idToSlot.get(String(ids?.get(i)));
    const r = Number(rid[i]);
    if (s !== undefined && sl.seq[s] === seq[i]) sl.rowId[s] = r;
    if (r >= next) next = r + 1;
  }
  return next;
}
