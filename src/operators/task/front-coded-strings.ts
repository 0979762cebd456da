import { GrowableBuffer } from './growable-buffer.ts';

/**
 * An append-only list of strings (ids), front-coded: each one is stored as the length of the prefix
 * it shares with the string before it plus the rest, in blocks of 16 that each start with a whole
 * string (so any one is decoded from its block's start). Ids of a file are mostly near-sequential
 * (`s1000041`, `s1000042`…): ~3–4 bytes each instead of ~8 bytes of text + a 4-byte offset.
 *
 * Lengths and code units are varints, so any UTF-16 string round-trips exactly (ASCII: one byte a
 * character). Bytes and block starts grow in place (GrowableBuffer).
 */

const BLOCK_BITS = 4;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
/** Reserved address space (not memory): 4 GiB of coded strings; block starts for 2^31 strings. */
const MAX_BYTES = 2 ** 32;
const MAX_START_BYTES = 2 ** (31 - BLOCK_BITS) * 4;

export class FrontCodedStrings {
  private readonly byteMemory = new GrowableBuffer(1 << 16, MAX_BYTES);
  private bytes = new Uint8Array(this.byteMemory.memory, 0, this.byteMemory.byteLength);
  private end = 0;
  private readonly startMemory = new GrowableBuffer(1 << 12, MAX_START_BYTES);
  /** Per block of 16: where its first string's bytes start. */
  private starts = new Uint32Array(this.startMemory.memory, 0, this.startMemory.byteLength / 4);
  private count = 0;
  private last = '';
  /** Code units of the string decoded last (grown as needed). */
  private units = new Uint16Array(256);
  private cursor = 0;

  get size(): number {
    return this.count;
  }

  /** Append `s`; its slot is the count before. */
  push(s: string): number {
    const slot = this.count++;
    // At most 3 bytes a code unit and 5 a length: room for the worst case, then no checks per byte.
    if (this.end + 3 * s.length + 10 > this.bytes.length) {
      this.byteMemory.grow(this.end + 3 * s.length + 10);
      this.bytes = new Uint8Array(this.byteMemory.memory, 0, this.byteMemory.byteLength);
    }
    let shared = 0;
    if ((slot & BLOCK_MASK) === 0) {
      const b = slot >>> BLOCK_BITS;
      if (b >= this.starts.length) {
        this.startMemory.grow((b + 1) * 4);
        this.starts = new Uint32Array(this.startMemory.memory, 0, this.startMemory.byteLength / 4);
      }
      this.starts[b] = this.end;
    } else {
      const last = this.last;
      const n = Math.min(last.length, s.length);
      while (shared < n && last.charCodeAt(shared) === s.charCodeAt(shared)) shared++;
    }
    this.writeVarint(shared);
    this.writeVarint(s.length - shared);
    for (let k = shared; k < s.length; k++) {
      const c = s.charCodeAt(k);
      if (c < 0x80) this.bytes[this.end++] = c;
      else this.writeVarint(c);
    }
    this.last = s;
    return slot;
  }

  /** The string at `slot`. */
  at(slot: number): string {
    const n = this.decode(slot);
    let s = '';
    for (let k = 0; k < n; k += 4096)
      s += String.fromCharCode(...this.units.subarray(k, Math.min(n, k + 4096)));
    return s;
  }

  /** Whether the string at `slot` is `s` (decoded, never built). */
  equals(slot: number, s: string): boolean {
    const n = this.decode(slot);
    if (n !== s.length) return false;
    const units = this.units;
    for (let k = 0; k < n; k++) if (units[k] !== s.charCodeAt(k)) return false;
    return true;
  }

  /** Each of slots 0…count−1 in order, decoded into `units[0..n)` (valid during the call only). */
  forEach(count: number, visit: (units: Uint16Array, n: number, slot: number) => void): void {
    this.cursor = 0;
    let n = 0;
    for (let slot = 0; slot < count; slot++) {
      if ((slot & BLOCK_MASK) === 0) this.cursor = this.starts[slot >>> BLOCK_BITS]!;
      n = this.decodeNext();
      visit(this.units, n, slot);
    }
  }

  /** Decode `slot` into `units`: its length. Walks its block from the start (at most 15 strings before it). */
  private decode(slot: number): number {
    const first = slot & ~BLOCK_MASK;
    this.cursor = this.starts[slot >>> BLOCK_BITS]!;
    let n = 0;
    for (let i = first; i <= slot; i++) n = this.decodeNext();
    return n;
  }

  /** Decode the string at `cursor` over the one before it in `units`: its length. */
  private decodeNext(): number {
    const shared = this.readVarint();
    const n = shared + this.readVarint();
    if (n > this.units.length) {
      const more = new Uint16Array(Math.max(n, this.units.length * 2));
      more.set(this.units.subarray(0, shared));
      this.units = more;
    }
    const units = this.units;
    const bytes = this.bytes;
    for (let k = shared; k < n; k++) {
      const x = bytes[this.cursor]!;
      if (x < 0x80) {
        units[k] = x;
        this.cursor++;
      } else units[k] = this.readVarint();
    }
    return n;
  }

  private writeVarint(v: number): void {
    while (v >= 0x80) {
      this.bytes[this.end++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.end++] = v;
  }

  private readVarint(): number {
    let x = this.bytes[this.cursor++]!;
    if (x < 0x80) return x;
    let v = x & 0x7f;
    let shift = 7;
    for (;;) {
      x = this.bytes[this.cursor++]!;
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
      shift += 7;
    }
  }
}
