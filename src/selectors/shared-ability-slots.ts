import { growTyped } from '../core/typed-grow.ts';

/** Stride of the interleaved per-observed-task columns. */
export const OB = 6;

/**
 * The tasks the shared-ability model has observed at least once, with copies of their columns in
 * slot order (the order they were first observed), so the selection scan over them reads memory
 * sequentially. Per slot, interleaved: x0, x1, practice, residual mean, residual variance, last
 * step seen.
 */
export class ObservedSlots {
  /** 1 for tasks observed at least once. */
  observed = new Uint8Array(0);
  /** Slot of each task (−1: never observed). */
  slotOf = new Int32Array(0);
  /** The observed tasks, in slot order. */
  list = new Int32Array(64);
  count = 0;
  columns = new Float64Array(64 * OB);
  domain = new Int32Array(64);

  /** Forget every slot; n tasks. */
  reset(n: number): void {
    this.observed = new Uint8Array(n);
    this.slotOf = new Int32Array(n).fill(-1);
    this.count = 0;
  }

  /** Room for n tasks (new ones unobserved). */
  resize(n: number): void {
    const observed = new Uint8Array(n);
    observed.set(this.observed);
    this.observed = observed;
    const slotOf = new Int32Array(n).fill(-1);
    slotOf.set(this.slotOf);
    this.slotOf = slotOf;
  }

  /** Give task k the next slot, with its static columns (x0, x1) and its domain. */
  mark(k: number, x0: number, x1: number, domain: number): void {
    this.observed[k] = 1;
    if (this.count === this.list.length) {
      const cap = this.list.length * 2;
      const grow = <T extends Float64Array | Int32Array>(a: T): T => growTyped(a, cap);
      this.list = grow(this.list);
      this.domain = grow(this.domain);
      const columns = new Float64Array(cap * OB);
      columns.set(this.columns);
      this.columns = columns;
    }
    const j = this.count++;
    this.list[j] = k;
    this.slotOf[k] = j;
    this.columns[j * OB] = x0;
    this.columns[j * OB + 1] = x1;
    this.domain[j] = domain;
  }

  /** Copy an observed task's changing columns into its slot (nothing for a task never observed). */
  sync(k: number, practiced: number, rMean: number, rVar: number, seen: number): void {
    const j = this.slotOf[k]!;
    if (j < 0) return;
    const o = j * OB;
    this.columns[o + 2] = practiced;
    this.columns[o + 3] = rMean;
    this.columns[o + 4] = rVar;
    this.columns[o + 5] = seen;
  }
}
