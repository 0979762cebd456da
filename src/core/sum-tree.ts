/**
 * A sum tree (Fenwick tree) over slot weights: O(log n) update and O(log n) draw of a slot with
 * probability weight / total. Used by the buffer's weighted disciplines, so a sample from 1M rows
 * costs a few hundred tree descents instead of a pass over every row, and by selectors that draw a
 * batch ∝ per-task weights (weighted-draws.ts).
 */
export class SumTree {
  private tree = new Float64Array(1);
  private values = new Float64Array(0);
  private cap = 0;
  private sum = 0;

  get capacity(): number {
    return this.cap;
  }

  get total(): number {
    return this.sum;
  }

  get(i: number): number {
    return i < this.cap ? this.values[i]! : 0;
  }

  set(i: number, w: number): void {
    const v = Number.isFinite(w) && w > 0 ? w : 0;
    if (i >= this.cap) {
      if (v === 0) return;
      this.grow(i + 1);
    }
    const d = v - this.values[i]!;
    if (d === 0) return;
    this.values[i] = v;
    this.sum += d;
    for (let k = i + 1; k <= this.cap; k += k & -k) this.tree[k]! += d;
  }

  /** Rebuild from scratch (also clears floating-point drift). */
  reset(n: number, weight: (i: number) => number): void {
    let cap = 1;
    while (cap < n) cap *= 2;
    this.cap = cap;
    this.values = new Float64Array(cap);
    this.tree = new Float64Array(cap + 1);
    this.sum = 0;
    for (let i = 0; i < n; i++) {
      const w = weight(i);
      const v = Number.isFinite(w) && w > 0 ? w : 0;
      this.values[i] = v;
      this.sum += v;
    }
    for (let i = 1; i <= cap; i++) {
      this.tree[i]! += this.values[i - 1]!;
      const j = i + (i & -i);
      if (j <= cap) this.tree[j]! += this.tree[i]!;
    }
  }

  private grow(min: number): void {
    const old = this.values;
    const n = old.length;
    let cap = Math.max(1024, this.cap);
    while (cap < min) cap *= 2;
    this.reset(cap, (i) => (i < n ? old[i]! : 0));
  }

  /** The slot whose cumulative-weight interval contains `u` (0 ≤ u < total); −1 when empty. */
  find(u: number): number {
    if (!(this.sum > 0)) return -1;
    let pos = 0;
    let rest = u;
    for (let step = this.cap; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.cap && this.tree[next]! <= rest) {
        pos = next;
        rest -= this.tree[next]!;
      }
    }
    // Rounding can land on a zero-weight slot at the end; walk back to a weighted one.
    let i = Math.min(pos, this.cap - 1);
    while (i > 0 && this.values[i] === 0) i--;
    return this.values[i]! > 0 ? i : -1;
  }
}
