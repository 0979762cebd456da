/** What one selector did on one simulated run. */
export interface RunTrace {
  selector: string;
  seed: number;
  steps: number;
  batch: number;
  groupSize: number;
  /** Held-out accuracy before the first step. */
  startAccuracy: number;
  /** Held-out accuracy after each step (index t = after t + 1 steps). */
  accuracy: Float64Array;
  /** Groups with mixed rewards per step. */
  mixed: Int32Array;
  groups: Int32Array;
  /** Rollouts spent up to and including each step (screening, probes and discarded groups too). */
  rollouts: Float64Array;
  /** Sum over steps of Σ (predicted − reward)² over the batch's rollouts, and the count (0: no predictions). */
  brierSum: number;
  brierCount: number;
  /** Σ (predicted − true pass rate)² over selected tasks, and the count. */
  calibSum: number;
  calibCount: number;
  distinct: number;
  warnings: number;
}

export interface Stat {
  mean: number;
  sd: number;
  n: number;
}

export function stat(xs: readonly number[]): Stat {
  const finite = xs.filter((x) => Number.isFinite(x));
  const n = finite.length;
  if (n === 0) return { mean: Number.NaN, sd: Number.NaN, n: 0 };
  const mean = finite.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(finite.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (n - 1)) : 0;
  return { mean, sd, n };
}

/** First step count after which accuracy ≥ target, or null if never within the run. */
export function stepsToTarget(accuracy: Float64Array, target: number): number | null {
  for (let t = 0; t < accuracy.length; t++) if (accuracy[t]! >= target - 1e-12) return t + 1;
  return null;
}

/** Share of selected groups with mixed rewards over steps [from, to). */
export function effectiveTaskRatio(trace: RunTrace, from = 0, to = trace.steps): number {
  let m = 0;
  let g = 0;
  for (let t = from; t < to; t++) {
    m += trace.mixed[t]!;
    g += trace.groups[t]!;
  }
  return g > 0 ? m / g : Number.NaN;
}

export function brier(trace: RunTrace): number {
  return trace.brierCount > 0 ? trace.brierSum / trace.brierCount : Number.NaN;
}

export function calibrationError(trace: RunTrace): number {
  return trace.calibCount > 0 ? trace.calibSum / trace.calibCount : Number.NaN;
}
