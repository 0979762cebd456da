import { FrontCodedStrings } from './front-coded-strings.ts';
import { GrowableBuffer } from './growable-buffer.ts';

/**
 * exact_dedup's kept ids, in slot order. A file without an id column gets content-hash ids
 * (`taskContentId`: `t_` and 16 lowercase hex digits): random, so front coding saves nothing on
 * them (~18 bytes an id, 164 MB at 9.1M kept rows). While every id has that shape, each is kept as
 * its 64 bits in two words (8 bytes); the first id of any other shape moves them all into a
 * FrontCodedStrings (decoded to the very same strings), which then holds every id. Either way each
 * id is given back exactly as pushed.
 */

/** `taskContentId`'s shape: this prefix, then exactly HEX_DIGITS lowercase hex digits. */
const PREFIX = 't_';
const HEX_DIGITS = 16;
const ID_LENGTH = PREFIX.length + HEX_DIGITS;
const MAX_WORD_BYTES = 2 ** 33;

/** The value of lowercase hex digits `s[from..from+8)`, or −1 when one is not `0-9a-f`. */
function hexWord(s: string, from: number): number {
  let v = 0;
  for (let k = from; k < from + 8; k++) {
    const c = s.charCodeAt(k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Code unit of hex digit `d` (0–15), lowercase. */
const hexUnit = (d: number) => (d < 10 ? 48 + d : 87 + d);

export class IdStrings {
  private wordMemory = new GrowableBuffer(1 << 12, MAX_WORD_BYTES);
  /** Per slot, the hex digits' high and low 32 bits (while `coded` is null). */
  private words = new Uint32Array(this.wordMemory.memory, 0, this.wordMemory.byteLength / 4);
  /** Every id, once one did not have the content-hash shape. */
  private coded: FrontCodedStrings | null = null;
  private count = 0;
  /** The last id's code units (`forEach`). */
  private readonly units = new Uint16Array(ID_LENGTH);
  /** The words of the id `equals` parsed last, for the next comparisons with the same string. */
  private parsed = '';
  private parsedHi = -1;
  private parsedLo = -1;

  get size(): number {
    return this.count;
  }

  /** Append `s`; its slot is the count before. */
  push(s: string): number {
    if (this.coded) {
      this.count++;
      return this.coded.push(s);
    }
    const hi = this.shaped(s) ? hexWord(s, PREFIX.length) : -1;
    const lo = hi >= 0 ? hexWord(s, PREFIX.length + 8) : -1;
    if (lo < 0) {
      this.recode();
      this.count++;
      return this.coded!.push(s);
    }
    const slot = this.count++;
    const at = slot * 2;
    if (at + 2 > this.words.length) {
      this.wordMemory.grow((at + 2) * 4);
      this.words = new Uint32Array(this.wordMemory.memory, 0, this.wordMemory.byteLength / 4);
    }
    this.words[at] = hi;
    this.words[at + 1] = lo;
    return slot;
  }

  /** The string at `slot`. */
  at(slot: number): string {
    if (this.coded) return this.coded.at(slot);
    const hex = (w: number) => w.toString(16).padStart(8, '0');
    return `${PREFIX}${hex(this.words[slot * 2]!)}${hex(this.words[slot * 2 + 1]!)}`;
  }

  /** Whether the string at `slot` is `s`. */
  equals(slot: number, s: string): boolean {
    if (this.coded) return this.coded.equals(slot, s);
    if (s !== this.parsed) {
      this.parsed = s;
      this.parsedHi = this.shaped(s) ? hexWord(s, PREFIX.length) : -1;
      this.parsedLo = this.parsedHi >= 0 ? hexWord(s, PREFIX.length + 8) : -1;
    }
    return (
      this.parsedLo >= 0 &&
      this.words[slot * 2] === this.parsedHi &&
      this.words[slot * 2 + 1] === this.parsedLo
    );
  }

  /** Each of slots 0…count−1 in order, as code units `units[0..n)` (valid during the call only). */
  forEach(count: number, visit: (units: Uint16Array, n: number, slot: number) => void): void {
    if (this.coded) {
      this.coded.forEach(count, visit);
      return;
    }
    const units = this.units;
    for (let k = 0; k < PREFIX.length; k++) units[k] = PREFIX.charCodeAt(k);
    for (let slot = 0; slot < count; slot++) {
      for (let half = 0; half < 2; half++) {
        const w = this.words[slot * 2 + half]!;
        const base = PREFIX.length + half * 8;
        for (let k = 0; k < 8; k++) units[base + k] = hexUnit((w >>> (28 - 4 * k)) & 15);
      }
      visit(units, ID_LENGTH, slot);
    }
  }

  /** The prefix and length of a content-hash id (its digits are checked by `hexWord`). */
  private shaped(s: string): boolean {
    return s.length === ID_LENGTH && s.startsWith(PREFIX);
  }

  /** Move every id kept so far into front-coded strings, the same ids in the same slots. */
  private recode(): void {
    const coded = new FrontCodedStrings();
    for (let slot = 0; slot < this.count; slot++) coded.push(this.at(slot));
    this.coded = coded;
    // The words' memory goes with the garbage (a tiny buffer stands in).
    this.wordMemory = new GrowableBuffer(8, 8);
    this.words = new Uint32Array(0);
  }
}
