import { growTyped } from '../core/typed-grow.ts';
import type { RowFacts } from './samplers/sampler.ts';
import type { WriteFacts } from './write-facts.ts';

/**
 * The buffer's in-memory index: one slot per stored row, in insertion (seq) order, holding only
 * the columns sampling decisions need, as typed arrays. Sampling 256 of 1M rows must not scan the
 * table; it scans these arrays and then fetches the chosen rows' payloads by row id.
 *
 * Use state per slot is split in two:
 * - acknowledged: `uses`, `lastStep`, `lastAt`, `consumed` (what the table holds after a fold, plus
 *   acknowledged journal entries not folded yet — those slots are in `dirty`);
 * - pending: leases handed out by `sample` and not yet acknowledged (`pending`, `pendingStep`,
 *   `pendingAt`, `pendingSkip`), each listed in `leases` so it can be acknowledged or rolled back.
 */

export type LeaseKind = 'use' | 'skip';

export interface Lease {
  step: number;
  at: number;
  kind: LeaseKind;
}

export interface SlotRow {
  id: string;
  seq: number;
  rowId: number;
  groupId: string;
  modelVersion: number;
  advantage: number;
  createdAt: number;
  /** Small scalar fields kept here so `sample` reads fewer columns (see PAYLOAD_COLUMNS). */
  taskId: string;
  taskset: string;
  runIndex: number;
  stepIndex: number;
  exploreStep: number;
  promptLength: number;
  reward: number;
  /** Sequence entropy estimate (sequence-stats.ts); NaN when unknown. */
  entropy?: number;
  truncated: boolean;
  expert: boolean;
  /** `payload_flags`: which optional payload columns the row uses. */
  payload: number;
  uses: number;
  lastStep: number;
  lastAt: number;
  consumed: boolean;
}

/** Every per-slot typed column and the value a new (never written) slot holds: grown and compacted alike. */
const SLOT_COLUMNS = [
  ['seq', undefined],
  ['rowId', -1],
  ['group', undefined],
  ['modelVersion', undefined],
  ['advantage', undefined],
  ['createdAt', undefined],
  ['taskset', undefined],
  ['runIndex', undefined],
  ['stepIndex', undefined],
  ['exploreStep', undefined],
  ['promptLength', undefined],
  ['reward', undefined],
  ['entropy', Number.NaN],
  ['flags', undefined],
  ['payload', undefined],
  ['uses', undefined],
  ['lastStep', -1],
  ['lastAt', undefined],
  ['consumed', undefined],
  ['pending', undefined],
  ['pendingStep', -1],
  ['pendingAt', undefined],
  ['pendingSkip', -1],
  ['priority', undefined],
  ['alive', undefined],
] as const satisfies readonly (readonly [keyof ExperienceSlots, number | undefined])[];
type SlotColumn = (typeof SLOT_COLUMNS)[number][0];

/** A row's `flags` in the index: bit 0 truncated, bit 1 expert. */
export const slotFlags = (truncated: boolean, expert: boolean): number =>
  (truncated ? 1 : 0) | (expert ? 2 : 0);

export class ExperienceSlots {
  size = 0;
  live = 0;
  ids: string[] = [];
  taskIds: string[] = [];
  readonly idToSlot = new Map<string, number>();
  seq = new Float64Array(0);
  /** Lance stable row id; −1 when not known yet (resolved lazily by the buffer). */
  rowId = new Float64Array(0);
  group = new Int32Array(0);
  modelVersion = new Int32Array(0);
  advantage = new Float64Array(0);
  createdAt = new Float64Array(0);
  taskset = new Int32Array(0);
  runIndex = new Int32Array(0);
  stepIndex = new Int32Array(0);
  exploreStep = new Int32Array(0);
  promptLength = new Int32Array(0);
  reward = new Float64Array(0);
  /** Sequence entropy estimate per slot (NaN: unknown, or the sampler needs none). */
  entropy = new Float64Array(0);
  /** bit 0: truncated, bit 1: expert. */
  flags = new Uint8Array(0);
  payload = new Uint8Array(0);
  uses = new Int32Array(0);
  lastStep = new Int32Array(0);
  lastAt = new Float64Array(0);
  consumed = new Uint8Array(0);
  pending = new Int32Array(0);
  pendingStep = new Int32Array(0);
  pendingAt = new Float64Array(0);
  pendingSkip = new Int32Array(0);
  /** Priority at the slot's effective use count (acknowledged + pending). */
  priority = new Float64Array(0);
  alive = new Uint8Array(0);
  readonly groupNames: string[] = [];
  private readonly groupIndex = new Map<string, number>();
  readonly tasksetNames: string[] = [];
  private readonly tasksetIndex = new Map<string, number>();
  /** Pending leases per slot (only slots that have any). */
  readonly leases = new Map<number, Lease[]>();
  /** Slots whose acknowledged state is newer than the table's columns. */
  readonly dirty = new Set<number>();

  private grow(min: number): void {
    let cap = Math.max(1024, this.seq.length);
    while (cap < min) cap *= 2;
    if (cap === this.seq.length) return;
    const self = this as unknown as Record<SlotColumn, Float64Array | Int32Array | Uint8Array>;
    for (const [name, fill] of SLOT_COLUMNS) self[name] = growTyped(self[name], cap, fill);
  }

  groupOf(name: string): number {
    // Rows of one group usually arrive one after another: compare before hashing.
    if (name === this.lastGroup.name) return this.lastGroup.index;
    let g = this.groupIndex.get(name);
    if (g === undefined) {
      g = this.groupNames.length;
      this.groupNames.push(name);
      this.groupIndex.set(name, g);
    }
    this.lastGroup.name = name;
    this.lastGroup.index = g;
    return g;
  }

  /** The name looked up last and its index (null before the first: no name matches it). */
  private readonly lastGroup: { name: string | null; index: number } = { name: null, index: -1 };
  private readonly lastTaskset: { name: string | null; index: number } = { name: null, index: -1 };

  private tasksetOf(name: string): number {
    if (name === this.lastTaskset.name) return this.lastTaskset.index;
    let t = this.tasksetIndex.get(name);
    if (t === undefined) {
      t = this.tasksetNames.length;
      this.tasksetNames.push(name);
      this.tasksetIndex.set(name, t);
    }
    this.lastTaskset.name = name;
    this.lastTaskset.index = t;
    return t;
  }

  /** Append a row; rows must arrive in increasing seq order. */
  append(r: SlotRow): number {
    const s = this.place(r.id, r.seq, r.rowId, r.groupId, r.taskId, r.taskset, r.payload);
    this.modelVersion[s] = r.modelVersion;
    this.advantage[s] = r.advantage;
    this.createdAt[s] = r.createdAt;
    this.runIndex[s] = r.runIndex;
    this.stepIndex[s] = r.stepIndex;
    this.exploreStep[s] = r.exploreStep;
    this.promptLength[s] = r.promptLength;
    this.reward[s] = r.reward;
    this.entropy[s] = r.entropy ?? Number.NaN;
    this.flags[s] = slotFlags(r.truncated, r.expert);
    this.uses[s] = r.uses;
    this.lastStep[s] = r.lastStep;
    this.lastAt[s] = r.lastAt;
    this.consumed[s] = r.consumed ? 1 : 0;
    return s;
  }

  /**
   * Append row `k` of a write call just committed (never used), from the facts taken when the call
   * was made (write-facts.ts): no object per row.
   */
  appendNew(f: WriteFacts, k: number, seq: number, rowId: number, payload: number): number {
    const s = this.place(f.ids[k]!, seq, rowId, f.groupIds[k]!, f.taskIds[k]!, f.tasksets[k]!, payload);
    this.modelVersion[s] = f.modelVersion[k]!;
    this.advantage[s] = f.advantage[k]!;
    this.createdAt[s] = f.createdAt[k]!;
    this.runIndex[s] = f.runIndex[k]!;
    this.stepIndex[s] = f.stepIndex[k]!;
    this.exploreStep[s] = f.exploreStep[k]!;
    this.promptLength[s] = f.promptLength[k]!;
    this.reward[s] = f.reward[k]!;
    this.entropy[s] = f.entropy[k]!;
    this.flags[s] = f.flags[k]!;
    this.uses[s] = 0;
    this.lastStep[s] = -1;
    this.lastAt[s] = 0;
    this.consumed[s] = 0;
    return s;
  }

  /** Take the next slot for a row: its keys, place and payload flags, alive, with no pending lease. */
  private place(
    id: string,
    seq: number,
    rowId: number,
    groupId: string,
    taskId: string,
    taskset: string,
    payload: number,
  ): number {
    if (this.size > 0 && !(seq > this.seq[this.size - 1]!))
      throw new Error(`ExperienceSlots.append: seq ${seq} is not after ${this.seq[this.size - 1]}`);
    if (this.size === this.seq.length) this.grow(this.size + 1);
    const s = this.size++;
    this.ids[s] = id;
    this.idToSlot.set(id, s);
    this.seq[s] = seq;
    this.rowId[s] = rowId;
    this.group[s] = this.groupOf(groupId);
    this.taskIds[s] = taskId;
    this.taskset[s] = this.tasksetOf(taskset);
    this.payload[s] = payload;
    this.pending[s] = 0;
    this.pendingStep[s] = -1;
    this.pendingAt[s] = 0;
    this.pendingSkip[s] = -1;
    this.alive[s] = 1;
    this.live++;
    return s;
  }

  /** What a sampler may read about the row in `slot`. */
  facts(slot: number): RowFacts {
    return {
      id: this.ids[slot]!,
      seq: this.seq[slot]!,
      modelVersion: this.modelVersion[slot]!,
      advantage: this.advantage[slot]!,
      reward: this.reward[slot]!,
      taskId: this.taskIds[slot]!,
      taskset: this.tasksetNames[this.taskset[slot]!]!,
      groupId: this.groupNames[this.group[slot]!]!,
      exploreStep: this.exploreStep[slot]!,
      entropy: this.entropy[slot]!,
    };
  }

  /** Slot holding `seq`, or −1 (binary search: slots are in seq order). */
  slotOfSeq(seq: number): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.seq[mid]!;
      if (v === seq) return mid;
      if (v < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  remove(slot: number): void {
    if (!this.alive[slot]) return;
    this.alive[slot] = 0;
    this.live--;
    this.idToSlot.delete(this.ids[slot]!);
    this.leases.delete(slot);
    this.dirty.delete(slot);
  }

  /** Effective uses: acknowledged plus pending deliveries. */
  effectiveUses(slot: number): number {
    return this.uses[slot]! + this.pending[slot]!;
  }

  addLease(slot: number, lease: Lease): void {
    let list = this.leases.get(slot);
    if (!list) {
      list = [];
      this.leases.set(slot, list);
    }
    list.push(lease);
    this.applyPending(slot, list);
  }

  private applyPending(slot: number, list: readonly Lease[]): void {
    let n = 0;
    let step = -1;
    let at = 0;
    let skip = -1;
    for (const l of list) {
      if (l.kind === 'skip') skip = Math.max(skip, l.step);
      else {
        n++;
        step = Math.max(step, l.step);
        at = Math.max(at, l.at);
      }
    }
    this.pending[slot] = n;
    this.pendingStep[slot] = step;
    this.pendingAt[slot] = at;
    this.pendingSkip[slot] = skip;
    if (list.length === 0) this.leases.delete(slot);
  }

  /**
   * Settle leases: those with `step ≤ through` (when `ack`) become acknowledged uses/skips; with
   * `rollbackAfter`, those with `step > through` are dropped. Returns the slots touched.
   */
  settle(through: number, how: 'ack' | 'rollbackAfter'): number[] {
    const touched: number[] = [];
    for (const [slot, list] of [...this.leases]) {
      const keep: Lease[] = [];
      let changed = false;
      for (const l of list) {
        const hit = how === 'ack' ? l.step <= through : l.step > through;
        if (!hit) {
          keep.push(l);
          continue;
        }
        changed = true;
        if (how === 'ack') this.acknowledge(slot, l);
      }
      if (changed) {
        this.applyPending(slot, keep);
        if (keep.length > 0) this.leases.set(slot, keep);
        touched.push(slot);
      }
    }
    return touched;
  }

  /** Record one acknowledged use or skip in the slot's durable state. */
  acknowledge(slot: number, l: Lease): void {
    if (l.kind === 'skip') this.consumed[slot] = 1;
    else {
      this.uses[slot]!++;
      if (l.step > this.lastStep[slot]!) this.lastStep[slot] = l.step;
      if (l.at > this.lastAt[slot]!) this.lastAt[slot] = l.at;
    }
    this.dirty.add(slot);
  }

  /** Number of pending leases (all slots). */
  pendingCount(): number {
    let n = 0;
    for (const list of this.leases.values()) n += list.length;
    return n;
  }

  /** Whether `compact` would renumber: removed slots outnumber the live ones (and are at least 1,024). */
  wantsCompact(): boolean {
    const dead = this.size - this.live;
    return dead >= 1024 && dead >= this.live;
  }

  /**
   * Drop removed slots when they outnumber the live ones, so memory follows the live row count.
   * Slot numbers change; everything keyed by slot is remapped.
   */
  compact(): boolean {
    if (!this.wantsCompact()) return false;
    const map = new Int32Array(this.size).fill(-1);
    const cols = this as unknown as Record<SlotColumn, Float64Array | Int32Array | Uint8Array>;
    let j = 0;
    for (let s = 0; s < this.size; s++) {
      if (!this.alive[s]) continue;
      map[s] = j;
      if (j !== s) {
        this.ids[j] = this.ids[s]!;
        this.taskIds[j] = this.taskIds[s]!;
        for (const [name] of SLOT_COLUMNS) cols[name][j] = cols[name][s]!;
      }
      j++;
    }
    this.alive.fill(0, j, this.size);
    this.ids.length = j;
    this.taskIds.length = j;
    this.size = j;
    this.idToSlot.clear();
    for (let s = 0; s < j; s++) this.idToSlot.set(this.ids[s]!, s);
    const leases = [...this.leases];
    this.leases.clear();
    for (const [s, list] of leases) if (map[s]! >= 0) this.leases.set(map[s]!, list);
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const s of dirty) if (map[s]! >= 0) this.dirty.add(map[s]!);
    return true;
  }
}
