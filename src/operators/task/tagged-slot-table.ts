import { GrowableBuffer } from './growable-buffer.ts';

/**
 * A hash table of slot numbers (0, 1, 2… into per-slot data kept by its owner) in 4 bytes a cell.
 * Each cell also carries a few bits of its key's hash (the tag), so a probe passing other keys
 * compares them in the cell itself: the owner's per-slot data (elsewhere in memory) is read only
 * when the tag matches — about one probe in 2^tagBits besides the real hit.
 *
 * It grows in place by half (GrowableBuffer: no old and new table at once) and is then rebuilt
 * from the owner's slots in slot order (their data read front to back, not in cell order).
 */

/** What the table asks its owner: is `slot` the key being looked up; the hash of each slot's key, in slot order. */
export interface SlotKeys {
  matches(slot: number): boolean;
  /** Hashes of slots 0…count−1, in that order (to rebuild the table). */
  eachHash(count: number, take: (hash: number, slot: number) => void): void;
}

/**
 * Up to 85 % full (57 % after growing by half): the tags keep the longer linear probes cheap (cells,
 * not keys, are read). 80 % measured the same CPU and ~44 MB more at 9.3M keys (two tables).
 */
const MAX_LOAD = 0.85;
/**
 * The most keys `reserve` makes room for (past that the table grows as it fills): ~20 MB of cells,
 * so an estimate far above the keys that come (most rows dropped before the dedup) wastes little.
 */
const MAX_RESERVED_KEYS = 2 ** 22;
/** Address space reserved: 2^30 cells (2^31 slots would not fit at 85 % full anyway). */
const MAX_BYTES = 2 ** 32;

/** A 32-bit hash scaled to a position in a table of any capacity (its high bits decide). */
const positionOf = (h: number, cap: number) => Math.floor((h * cap) / 4294967296);

export class TaggedSlotTable {
  private readonly memory = new GrowableBuffer(4 << 10, MAX_BYTES);
  private cells = new Uint32Array(this.memory.memory, 0, this.memory.byteLength / 4);
  /**
   * A cell is 0 (empty) or tag × 2^slotBits + slot + 1. Slots take more bits as they grow (from 24:
   * 16.7M slots with an 8-bit tag), each step past 24 dropping the tag's lowest bit in every cell.
   */
  private slotBits = 0;
  private tagBits = 0;
  /** 2^slotBits, and 8 − tagBits (the tag is the high bits of the hash's low byte). */
  private slotScale = 0;
  private tagShift = 0;
  private count = 0;
  private readonly keys: SlotKeys;
  /** Where the last `find` ended on an empty cell, and for which hash: `insert` of that hash starts there. */
  private missAt = -1;
  private missHash = -1;

  /** Bits a cell uses (32; fewer only in tests, to reach the tag's narrowing with few keys). */
  private readonly cellBits: number;

  /** `bits` other than 24 of 32 only for tests (to reach the widening with few keys). */
  constructor(keys: SlotKeys, bits = { slot: 24, cell: 32 }) {
    this.keys = keys;
    this.cellBits = bits.cell;
    this.setSlotBits(bits.slot);
  }

  private setSlotBits(bits: number): void {
    this.slotBits = bits;
    this.tagBits = Math.min(8, this.cellBits - bits);
    this.slotScale = 2 ** bits;
    this.tagShift = 8 - this.tagBits;
  }

  get size(): number {
    return this.count;
  }

  /** Cells in the table (it grows before it is more than 85 % full). */
  get capacity(): number {
    return this.cells.length;
  }

  /** The slot whose key `keys.matches`, among those with hash `h`, or −1. */
  find(h: number): number {
    const cells = this.cells;
    const cap = cells.length;
    const tag = (h & 0xff) >>> this.tagShift;
    const bits = this.slotBits;
    const mask = this.slotScale - 1;
    for (let i = positionOf(h, cap); ; i = i + 1 === cap ? 0 : i + 1) {
      const c = cells[i]!;
      if (c === 0) {
        this.missAt = i;
        this.missHash = h;
        return -1;
      }
      if (c >>> bits === tag && this.keys.matches((c & mask) - 1)) return (c & mask) - 1;
    }
  }

  /** Add `slot`, the next slot (= size), whose key hashes to `h` (the caller checked it is not there yet). */
  insert(h: number, slot: number): void {
    while (slot + 1 >= this.slotScale) this.widenSlots();
    // The cell where a `find` of this hash ended is still empty (nothing was placed since: a
    // rebuild or another insert clears `missAt`).
    if (this.missHash === h && this.missAt >= 0)
      this.cells[this.missAt] = ((h & 0xff) >>> this.tagShift) * this.slotScale + slot + 1;
    else this.place(h, slot);
    this.missAt = -1;
    if (++this.count > this.cells.length * MAX_LOAD) this.rebuild();
  }

  private place(h: number, slot: number): void {
    const cells = this.cells;
    const cap = cells.length;
    let i = positionOf(h, cap);
    while (cells[i] !== 0) i = i + 1 === cap ? 0 : i + 1;
    cells[i] = ((h & 0xff) >>> this.tagShift) * this.slotScale + slot + 1;
  }

  /**
   * Room for `keys` keys in all before the table must grow again: one rebuild now (cheap while it
   * is small) instead of one at every growth by half (each reads every key again).
   */
  reserve(keys: number): void {
    const cells = Math.ceil(Math.min(keys, MAX_RESERVED_KEYS) / MAX_LOAD) + 1;
    if (cells > this.cells.length) this.rebuild(cells);
  }

  private rebuild(cells = Math.ceil(this.cells.length * 1.5)): void {
    this.memory.grow(cells * 4);
    this.cells = new Uint32Array(this.memory.memory, 0, this.memory.byteLength / 4);
    this.cells.fill(0);
    this.missAt = -1;
    this.keys.eachHash(this.count, (h, slot) => this.place(h, slot));
  }

  /** One more bit for slots (past 24, one fewer for tags), every cell rewritten in place (same positions). */
  private widenSlots(): void {
    if (this.slotBits === this.cellBits - 1)
      throw new Error(`more than ${2 ** this.slotBits - 2} keys in one table`);
    const mask = 2 ** this.slotBits - 1;
    const bits = this.slotBits + 1;
    const tagBits = Math.min(8, this.cellBits - bits);
    const drop = this.tagBits - tagBits;
    const cells = this.cells;
    for (let i = 0; i < cells.length; i++) {
      const c = cells[i]!;
      if (c !== 0) cells[i] = ((c >>> this.slotBits) >>> drop) * 2 ** bits + (c & mask);
    }
    this.setSlotBits(bits);
  }
}
