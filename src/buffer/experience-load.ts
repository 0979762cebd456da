import type * as arrow from 'apache-arrow';
import { outsideTimeRange } from '../core/experience.ts';
import type { ExperienceSlots, Lease } from './experience-slots.ts';
import type { ExperienceStorage } from './experience-storage.ts';
import type { RejectedStore } from './rejected-store.ts';
import { actionLogprobs, sequenceEntropy } from './sequence-stats.ts';
import { BAD_TIME } from './typed-columns.ts';

/** Rows on open that the buffer did not write as they are (another writer's): what became of them. */
export interface Reconciled {
  /** Ids indexed under a fresh seq (their seq was missing, invalid or already taken). */
  reseq: string[];
  /** Ids moved to the rejected table (`buffer:foreign-row`): their id was already taken, or a time cell no Date can hold. */
  quarantined: string[];
}

export interface LoadedIndex {
  nextSeq: number;
  lastAcked: number;
  reconciled: Reconciled;
}

/**
 * Rebuild the in-memory index from the table's bookkeeping columns, then replay the use journal.
 *
 * The index needs every row to have a unique id and a unique seq. Rows appended by another
 * connection or tool may break that: a row whose id another row already has (the earlier-written
 * one keeps it), or with a time no JS Date can hold, is quarantined into the rejected table and
 * deleted; a row whose seq is missing,
 * not a non-negative integer or already taken is given a fresh seq (one commit). Neither crashes
 * the open, and neither is silent.
 */
export async function loadIndex(
  storage: ExperienceStorage,
  slots: ExperienceSlots,
  rejected: RejectedStore,
  runId: string,
  opts: { entropy?: boolean } = {},
): Promise<LoadedIndex> {
  // The entropy estimate is rebuilt from the behaviour log-probs only for a sampler that reads it.
  const t = await storage.readBookkeeping(opts.entropy ? ['logprobs', 'action_mask'] : []);
  const c = identityColumns(t);
  const { unique, dupIds, badTimes } = partitionRows(c);
  const { keep, fresh, nextSeq } = assignSeqs(unique, c.seq, c.rowId);
  const { ids, seq } = c;
  const taken = (i: number) =>
    `table '${storage.name}': column id: id '${ids[i]}' (seq ${seq[i]}) is already held by an earlier row; another writer appended it`;
  const time = (i: number) =>
    `table '${storage.name}': row '${ids[i]}': column ${outsideTimeRange(c.created[i]!) ? 'created_at' : 'last_used_at'}: ${BAD_TIME}; another writer appended it`;
  const out = [
    ...dupIds.map((i) => ({ i, reason: taken(i) })),
    ...badTimes.map((i) => ({ i, reason: time(i) })),
  ];
  if (out.length > 0) await quarantine(storage, rejected, runId, out, ids, seq, c.rowId);
  await storage.reseq([...fresh].map(([i, s]) => ({ id: ids[i]!, seq: s })));
  indexRows(t, c, [...keep, ...fresh.keys()], fresh, storage, slots);
  let lastAcked = -1;
  for (let s = 0; s < slots.size; s++) lastAcked = Math.max(lastAcked, slots.lastStep[s]!);
  const oldSeq = new Map([...fresh.keys()].map((i) => [ids[i]!, seq[i]!]));
  lastAcked = await replayJournal(storage, slots, lastAcked, oldSeq);
  return {
    nextSeq,
    lastAcked,
    reconciled: {
      reseq: [...fresh.keys()].map((i) => ids[i]!),
      quarantined: out.map(({ i }) => ids[i]!),
    },
  };
}

/** The columns that decide a row's identity and whether it can be indexed at all. */
interface IdentityColumns {
  n: number;
  num: (name: string, fallback: number) => ArrayLike<number>;
  ids: string[];
  seq: ArrayLike<number>;
  rowId: ArrayLike<number>;
  created: ArrayLike<number>;
  lastAt: ArrayLike<number>;
}

function identityColumns(t: arrow.Table): IdentityColumns {
  const n = t.numRows;
  const num = numbers(t);
  const idVec = t.getChild('id');
  return {
    n,
    num,
    ids: Array.from({ length: n }, (_, i) => String(idVec?.get(i))),
    seq: num('seq', Number.NaN),
    rowId: num('_rowid', -1),
    created: num('created_at', 0),
    lastAt: num('last_used_at', 0),
  };
}

/**
 * Earliest written first (the row that keeps a contested id): rows with a time no Date can hold
 * (another tool's row; it could not be read back), rows whose id an earlier row holds, the rest.
 */
function partitionRows(c: IdentityColumns): { unique: number[]; dupIds: number[]; badTimes: number[] } {
  const byWrite = sortedBy(c.n, (a, b) => c.rowId[a]! - c.rowId[b]!);
  const seenIds = new Set<string>();
  const dupIds: number[] = [];
  const unique: number[] = [];
  const badTime = (i: number) => outsideTimeRange(c.created[i]!) || outsideTimeRange(c.lastAt[i]!);
  const badTimes: number[] = [];
  for (const i of byWrite) {
    if (badTime(i)) badTimes.push(i);
    else if (seenIds.has(c.ids[i]!)) dupIds.push(i);
    else {
      seenIds.add(c.ids[i]!);
      unique.push(i);
    }
  }
  return { unique, dupIds, badTimes };
}

/** Rows that keep their seq (in seq order), and a fresh seq for each row whose seq is missing, invalid or taken. */
function assignSeqs(
  unique: readonly number[],
  seq: ArrayLike<number>,
  rowId: ArrayLike<number>,
): { keep: number[]; fresh: Map<number, number>; nextSeq: number } {
  const valid = (i: number) => Number.isInteger(seq[i]) && seq[i]! >= 0;
  const bySeq = unique.filter(valid);
  sortIfNeeded(bySeq, (a, b) => seq[a]! - seq[b]! || rowId[a]! - rowId[b]!);
  const keep: number[] = [];
  const reseq = new Set(unique.filter((i) => !valid(i)));
  for (const i of bySeq) {
    if (keep.length > 0 && seq[keep[keep.length - 1]!] === seq[i]) reseq.add(i);
    else keep.push(i);
  }
  let nextSeq = keep.length > 0 ? seq[keep[keep.length - 1]!]! + 1 : 0;
  const fresh = new Map<number, number>();
  for (const i of [...reseq].sort((a, b) => rowId[a]! - rowId[b]!)) fresh.set(i, nextSeq++);
  return { keep, fresh, nextSeq };
}

/** Append `order`'s rows to the index from the bookkeeping columns. */
function indexRows(
  t: arrow.Table,
  c: IdentityColumns,
  order: readonly number[],
  fresh: ReadonlyMap<number, number>,
  storage: ExperienceStorage,
  slots: ExperienceSlots,
): void {
  const num = c.num;
  const mv = num('model_version', 0);
  const adv = num('advantage', 0);
  const runIndex = num('run_index', 0);
  const stepIndex = num('step_index', 0);
  const exploreStep = num('explore_step', 0);
  const promptLength = num('prompt_length', 0);
  const reward = num('reward', Number.NaN);
  const uses = num('use_count', 0);
  const lastStep = num('last_used_step', -1);
  const payload = num('payload_flags', 0);
  const str = (name: string) => t.getChild(name);
  const taskVec = str('task_id');
  const tasksetVec = str('taskset');
  const groupVec = str('group_id');
  const consumedVec = str('consumed');
  const truncatedVec = str('truncated');
  const expertVec = str('expert');
  const entropy = entropyColumn(t);
  for (const i of order) {
    slots.append({
      id: c.ids[i]!,
      seq: fresh.get(i) ?? c.seq[i]!,
      rowId: storage.noteLoadedRowId(c.rowId[i]!),
      groupId: String(groupVec?.get(i)),
      modelVersion: mv[i]!,
      advantage: adv[i]!,
      createdAt: c.created[i]!,
      taskId: String(taskVec?.get(i)),
      taskset: String(tasksetVec?.get(i)),
      runIndex: runIndex[i]!,
      stepIndex: stepIndex[i]!,
      exploreStep: exploreStep[i]!,
      promptLength: promptLength[i]!,
      reward: reward[i]!,
      entropy: entropy(i),
      truncated: Boolean(truncatedVec?.get(i)),
      expert: Boolean(expertVec?.get(i)),
      payload: payload[i]!,
      uses: uses[i]!,
      lastStep: lastStep[i]!,
      lastAt: c.lastAt[i]!,
      consumed: Boolean(consumedVec?.get(i)),
    });
  }
}

/**
 * Apply the journal's leases and acknowledgements to the index. An entry belongs to a row when
 * both its seq and id match (or the row was just given a fresh seq and the entry has its old one).
 */
async function replayJournal(
  storage: ExperienceStorage,
  slots: ExperienceSlots,
  lastAckedIn: number,
  oldSeq: ReadonlyMap<string, number>,
): Promise<number> {
  let lastAcked = lastAckedIn;
  const entries = await storage.journal.readAll();
  for (const e of entries) if (e.kind === 'ack') lastAcked = Math.max(lastAcked, e.step);
  entries.sort((a, b) => a.step - b.step || a.seq - b.seq);
  for (const e of entries) {
    if (e.kind === 'ack') continue;
    let slot = slots.slotOfSeq(e.seq);
    if (slot >= 0 && slots.ids[slot] !== e.id) slot = -1;
    if (slot < 0 && oldSeq.get(e.id) === e.seq) slot = slots.idToSlot.get(e.id) ?? -1;
    if (slot < 0) continue; // evicted since
    const lease: Lease = { step: e.step, at: e.at, kind: e.kind };
    // Entries at or below the row's folded watermark are already in its columns.
    if (e.kind === 'use' && e.step <= slots.lastStep[slot]!) continue;
    if (e.kind === 'skip' && slots.consumed[slot]) continue;
    if (e.step <= lastAcked) slots.acknowledge(slot, lease);
    else slots.addLease(slot, lease);
  }
  return lastAcked;
}

/** Record rows whose id is already taken in the rejected table, then delete them. */
async function quarantine(
  storage: ExperienceStorage,
  rejected: RejectedStore,
  runId: string,
  rows: readonly { i: number; reason: string }[],
  ids: readonly string[],
  seq: ArrayLike<number>,
  rowId: ArrayLike<number>,
): Promise<void> {
  const rids = rows.map(({ i }) => rowId[i]!);
  const full = await storage.readRowIds(rids);
  rejected.add(
    rows.map(({ i, reason }) => {
      const r = full.get(rowId[i]!);
      return {
        step: 'buffer:foreign-row',
        reason,
        file: storage.name,
        rowId: ids[i]!,
        payload: JSON.stringify(r ? { ...r.exp, seq: r.seq } : { id: ids[i], seq: seq[i] }),
        runId,
      };
    }),
  );
  await rejected.flush();
  await storage.removeRowIds(rids);
}

/** Row i's sequence entropy from the stored (response-only) log-probs and mask; NaN when not read. */
function entropyColumn(t: arrow.Table): (i: number) => number {
  const lp = t.getChild('logprobs');
  const mask = t.getChild('action_mask');
  if (!lp) return () => Number.NaN;
  const arr = (v: unknown): ArrayLike<number> => (v ? (v as { toArray(): ArrayLike<number> }).toArray() : []);
  return (i) => sequenceEntropy(actionLogprobs(arr(lp.get(i)), arr(mask?.get(i))));
}

/** 0..n−1 in `cmp` order (tables read back in write order usually are: no sort then). */
function sortedBy(n: number, cmp: (a: number, b: number) => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  sortIfNeeded(order, cmp);
  return order;
}

function sortIfNeeded(a: number[], cmp: (a: number, b: number) => number): void {
  for (let i = 1; i < a.length; i++)
    if (cmp(a[i - 1]!, a[i]!) > 0) {
      a.sort(cmp);
      return;
    }
}

/** Numeric columns as plain arrays, nulls (rows written by other tools) read as `fallback`. */
function numbers(t: arrow.Table): (name: string, fallback: number) => ArrayLike<number> {
  const n = t.numRows;
  return (name, fallback) => {
    const v = t.getChild(name);
    if (!v) return new Float64Array(n).fill(fallback);
    const a = v.toArray() as ArrayLike<number | bigint>;
    const out =
      typeof a[0] === 'bigint' ? Array.from(a as ArrayLike<bigint>, Number) : (a as ArrayLike<number>);
    if (v.nullCount === 0) return out;
    const fixed = Array.from(out);
    for (let i = 0; i < n; i++) if (!v.isValid(i)) fixed[i] = fallback;
    return fixed;
  };
}
