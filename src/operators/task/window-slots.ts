/**
 * The n-gram repetition fast paths' table (char-grams.ts, word-gram-counts.ts): open addressing
 * on a window's 32-bit hash, each slot holding the hash, the first window that had it and how many
 * windows had it. The arrays are reused from text to text; a slot belongs to the current text only
 * when its stamp is the current one, so starting a text clears nothing.
 */
export class WindowSlots {
  private hash: Int32Array;
  private first: Int32Array;
  private count: Int32Array;
  private stampOf: Int32Array;
  private stamp = 0;
  private mask = 0;
  private last = 0;

  constructor(initialSize: number) {
    this.hash = new Int32Array(initialSize);
    this.first = new Int32Array(initialSize);
    this.count = new Int32Array(initialSize);
    this.stampOf = new Int32Array(initialSize);
  }

  /** Starts a new text of `windows` windows (a table of at least twice as many slots). */
  begin(windows: number): void {
    let size = 64;
    while (size < windows * 2) size *= 2;
    if (size > this.hash.length) {
      this.hash = new Int32Array(size);
      this.first = new Int32Array(size);
      this.count = new Int32Array(size);
      this.stampOf = new Int32Array(size);
      this.stamp = 0;
    }
    if (++this.stamp === 0x7fffffff) {
      this.stampOf.fill(0);
      this.stamp = 1;
    }
    this.mask = size - 1;
  }

  /**
   * Puts window `i` with hash `h` in the table. Returns -1 when the hash is new to this text (a
   * slot with count 1 is made); otherwise the first window that had it, which the caller compares
   * with window `i` (a hash collision must not merge two n-grams) before counting it with `repeat`.
   */
  place(h: number, i: number): number {
    let slot = h & this.mask;
    for (;;) {
      if (this.stampOf[slot] !== this.stamp) {
        this.stampOf[slot] = this.stamp;
        this.hash[slot] = h;
        this.first[slot] = i;
        this.count[slot] = 1;
        return -1;
      }
      if (this.hash[slot] === h) {
        this.last = slot;
        return this.first[slot]!;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** Counts one more window in the slot `place` last found; returns its new count. */
  repeat(): number {
    return ++this.count[this.last]!;
  }

  /** Writes the counts of this text's n-grams seen more than once into `out`; returns how many. */
  repeatedCounts(out: Int32Array): number {
    let repeated = 0;
    for (let s = 0; s <= this.mask; s++)
      if (this.stampOf[s] === this.stamp && this.count[s]! > 1) out[repeated++] = this.count[s]!;
    return repeated;
  }
}
