/**
 * A compact key set for duplicate-id checks over millions of rows (exact_dedup itself keeps its
 * keys in an ExactDedupIndex). A `Map<string, …>`
 * with a million entries keeps a million strings and entry objects on the JS heap; every full GC
 * walks them all, so a run's GC time grew faster than its row count. These keep keys in typed
 * arrays (one growing code-unit arena, open-addressing slot tables): the GC sees a few buffers.
 */

const EMPTY = -1;

/** 32-bit multiply-xorshift hash of a string's UTF-16 code units. */
export function hashString(s: string): number {
  let h = 0x811c9dc5 ^ s.length;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** The same hash over code units `units[from..to)` (a key already in an arena). */
function hashUnits(units: Uint8Array | Uint16Array, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from);
  for (let i = from; i < to; i++) h = Math.imul(h ^ units[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** A 32-bit hash scaled to a position in a table of any capacity (its high bits decide). */
const scaled = (h: number, cap: number) => Math.floor((h * cap) / 4294967296);

/** Grown by half, not doubled: at 10M keys a doubled array leaves up to 40% of it unused. */
function growUint32(a: Uint32Array, min: number): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(Math.max(min, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

function growUint8(a: Uint8Array, min: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(Math.max(min, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

/**
 * 8 bits of a key's hash kept per slot: most probes of other keys end there, without a compare. The
 * low bits: the position comes from the high ones (`scaled`).
 */
const tagOf = (h: number) => h & 0xff;

/**
 * A set of strings numbered in insertion order (slot 0, 1, 2…), exact (keys are compared code unit
 * by code unit, never only by hash). Callers keep per-slot data in their own typed arrays.
 */
export class StringKeySet {
  /** Keys' code units: one byte each while every key is Latin-1 (ids usually are), two after. */
  private chars: Uint8Array | Uint16Array = new Uint8Array(1 << 16);
  private used = 0;
  /** Slot s's key is chars[start[s] .. start[s + 1]). */
  private start: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 10);
  /** Per slot, 8 bits of its key's hash (the full hash is recomputed from the arena on rehash). */
  private tags: Uint8Array<ArrayBuffer> = new Uint8Array(1 << 10);
  private table = new Int32Array(1 << 11).fill(EMPTY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The slot of `key`, or −1. */
  find(key: string): number {
    const h = hashString(key);
    const tag = tagOf(h);
    const cap = this.table.length;
    for (let i = scaled(h, cap); ; i = i + 1 === cap ? 0 : i + 1) {
      const s = this.table[i]!;
      if (s === EMPTY) return EMPTY;
      if (this.tags[s] === tag && this.equals(s, key)) return s;
    }
  }

  /** Add `key`: its new slot, or −(existing slot) − 1 when it was already there. */
  add(key: string): number {
    const h = hashString(key);
    const tag = tagOf(h);
    const cap = this.table.length;
    let i = scaled(h, cap);
    for (; ; i = i + 1 === cap ? 0 : i + 1) {
      const s = this.table[i]!;
      if (s === EMPTY) break;
      if (this.tags[s] === tag && this.equals(s, key)) return -s - 1;
    }
    const slot = this.count++;
    if (slot + 2 > this.start.length) {
      this.start = growUint32(this.start, slot + 2);
      this.tags = growUint8(this.tags, slot + 2);
    }
    let wide = this.chars instanceof Uint16Array;
    if (!wide) for (let k = 0; k < key.length && !wide; k++) wide = key.charCodeAt(k) > 0xff;
    if (this.used + key.length > this.chars.length || wide !== this.chars instanceof Uint16Array) {
      // Grow by half (not double): the arena is the largest part of the set.
      const size = Math.max(this.used + key.length, Math.ceil(this.chars.length * 1.5));
      const more = wide ? new Uint16Array(size) : new Uint8Array(size);
      more.set(this.chars.subarray(0, this.used));
      this.chars = more;
    }
    for (let k = 0; k < key.length; k++) this.chars[this.used + k] = key.charCodeAt(k);
    this.start[slot] = this.used;
    this.used += key.length;
    this.start[slot + 1] = this.used;
    this.tags[slot] = tag;
    this.table[i] = slot;
    if (this.count * 4 > this.table.length * 3) this.rehash();
    return slot;
  }

  /** The key of `slot` (built on demand: only for messages). */
  keyAt(slot: number): string {
    const from = this.start[slot]!;
    const to = this.start[slot + 1]!;
    let s = '';
    for (let k = from; k < to; k += 4096)
      s += String.fromCharCode(...this.chars.subarray(k, Math.min(to, k + 4096)));
    return s;
  }

  private equals(slot: number, key: string): boolean {
    const from = this.start[slot]!;
    if (this.start[slot + 1]! - from !== key.length) return false;
    for (let k = 0; k < key.length; k++) if (this.chars[from + k] !== key.charCodeAt(k)) return false;
    return true;
  }

  private rehash(): void {
    // Grown by half: a doubled table is at most 3/8 full after growing, and holds 2/3 of its slots empty.
    const table = new Int32Array(Math.ceil(this.table.length * 1.5)).fill(EMPTY);
    const cap = table.length;
    for (let s = 0; s < this.count; s++) {
      let i = scaled(hashUnits(this.chars, this.start[s]!, this.start[s + 1]!), cap);
      while (table[i] !== EMPTY) i = i + 1 === cap ? 0 : i + 1;
      table[i] = s;
    }
    this.table = table;
  }
}
