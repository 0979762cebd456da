// BOTS's explicit tasks: those stored one by one (observed, without references, clamped on both
// sides, added mid-run, or every task under per-domain capabilities). Slot arrays hold them in the
// order they became explicit (task, α, β, f0, Δ, last observed step), so the per-step loop over
// them reads memory in order; `slotOf` maps a task to its slot.
import { growTyped } from '../core/typed-grow.ts';

export class ExplicitSlots {
  task = new Int32Array(16);
  a = new Float64Array(16);
  b = new Float64Array(16);
  f0 = new Float64Array(16);
  d = new Float64Array(16);
  /** The step a task was last observed (−1: never). */
  stamp = new Int32Array(16);
  /** Each task's slot, −1 when it is not explicit. */
  slotOf: Int32Array;
  count = 0;

  constructor(tasks: number) {
    this.slotOf = new Int32Array(tasks).fill(-1);
  }

  /** Room for `tasks` tasks (the new ones not explicit). */
  resize(tasks: number): void {
    const slotOf = new Int32Array(tasks).fill(-1);
    slotOf.set(this.slotOf.subarray(0, Math.min(tasks, this.slotOf.length)));
    this.slotOf = slotOf;
  }

  /** A new slot for task k (not explicit yet), never observed; the caller sets α and β. */
  add(k: number, f0: number, d: number): number {
    if (this.count === this.task.length) {
      const cap = this.task.length * 2;
      const grow = <T extends Float64Array | Int32Array>(x: T): T => growTyped(x, cap);
      this.task = grow(this.task);
      this.a = grow(this.a);
      this.b = grow(this.b);
      this.f0 = grow(this.f0);
      this.d = grow(this.d);
      this.stamp = grow(this.stamp);
    }
    const j = this.count++;
    this.slotOf[k] = j;
    this.task[j] = k;
    this.f0[j] = f0;
    this.d[j] = d;
    this.stamp[j] = -1;
    return j;
  }

  /** Move slot `from` to `to` (closing the gaps left by tasks that rejoined a track). */
  move(from: number, to: number): void {
    const k = this.task[from]!;
    this.task[to] = k;
    this.a[to] = this.a[from]!;
    this.b[to] = this.b[from]!;
    this.f0[to] = this.f0[from]!;
    this.d[to] = this.d[from]!;
    this.stamp[to] = this.stamp[from]!;
    this.slotOf[k] = to;
  }
}
