import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { decodeNumber, encodeNumber } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import { fillTo, ZooSelector } from './zoo-base.ts';

/**
 * AdaRFT — adaptive curriculum reinforcement finetuning (Shi et al., 2025, "Efficient Reinforcement
 * Finetuning via Adaptive Curriculum Learning", arXiv:2504.05520). Every task has a fixed
 * difficulty d (a feature column, rescaled here to [0, 1] by its min and max). A target difficulty
 * T moves with the step's mean reward R̄:  T ← clip(T + η·tanh(α·(R̄ − β)), 0, 1),  and each batch
 * is the B tasks with the smallest |d − T|. The paper's η = 50 on a 0–100 scale is η = 0.5 here.
 * Inferred: the start T0 = 0 (the easiest tasks); ties in |d − T| (e.g. integer levels) are
 * broken uniformly at random; tasks without a difficulty are used only when nothing else is left.
 */
export const AdarftParamsSchema = z.strictObject({
  feature: z.string().min(1).default('difficulty').describe('difficulty column (higher = harder)'),
  eta: z
    .number()
    .positive()
    .default(0.5)
    .describe('η: largest move of the target per step (difficulty scale 0–1)'),
  alpha: z.number().positive().default(2).describe('α: sensitivity of the move to the reward gap'),
  beta: z.number().min(0).max(1).default(0.5).describe('β: the mean reward the curriculum aims at'),
  initialTarget: z.number().min(0).max(1).default(0).describe('T0 on the 0–1 difficulty scale'),
});
export type AdarftParams = z.output<typeof AdarftParamsSchema>;

export class AdarftSelector extends ZooSelector {
  readonly type = 'adarft';
  private readonly p: AdarftParams;
  /** Task indices with a difficulty, by (difficulty, index); their difficulties in the same order. */
  private order = new Int32Array(0);
  private sortedDifficulty = new Float64Array(0);
  private missing: number[] = [];
  private targetDifficulty: number;

  constructor(seed: number, params: AdarftParams) {
    super(seed);
    this.p = params;
    this.targetDifficulty = params.initialTarget;
  }

  /** The current target difficulty T (0–1 scale). */
  get target(): number {
    return this.targetDifficulty;
  }

  protected override onInit(view: SelectorTaskView): void {
    const col = view.features[this.p.feature];
    if (!col)
      throw new ConfigError({
        path: 'selector.params.feature',
        message: `adarft: the tasks have no feature column '${this.p.feature}'`,
        hint: `known: ${Object.keys(view.features).join(', ') || '(none)'}`,
      });
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const have: number[] = [];
    for (let k = 0; k < col.length; k++) {
      const d = col[k]!;
      if (!Number.isFinite(d)) {
        this.missing.push(k);
        continue;
      }
      have.push(k);
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
    const span = hi > lo ? hi - lo : 1;
    have.sort((a, b) => col[a]! - col[b]! || a - b);
    this.order = Int32Array.from(have);
    this.sortedDifficulty = Float64Array.from(have, (k) => (col[k]! - lo) / span);
  }

  protected pick(n: number): Int32Array {
    const vals = this.sortedDifficulty;
    const T = this.targetDifficulty;
    const out: number[] = [];
    // First position with difficulty ≥ T, then walk outwards one run of equal values at a time
    // (runs found by binary search: with integer levels a run holds a fifth of the pool).
    let left = this.firstAtLeast(T, 0, vals.length) - 1;
    let right = left + 1;
    while (out.length < n && (left >= 0 || right < vals.length)) {
      const dl = left >= 0 ? T - vals[left]! : Number.POSITIVE_INFINITY;
      const dr = right < vals.length ? vals[right]! - T : Number.POSITIVE_INFINITY;
      // The tie: positions left, left − 1, … of the left run, then right, right + 1, … of the right one.
      const fromLeft = left;
      const fromRight = right;
      if (dl <= dr) left = this.firstAtLeast(vals[left]!, 0, left) - 1;
      if (dr <= dl) right = this.firstAbove(vals[right]!, right, vals.length);
      const leftCount = fromLeft - left;
      const size = leftCount + (right - fromRight);
      const at = (j: number) => this.order[j < leftCount ? fromLeft - j : fromRight + j - leftCount]!;
      const need = n - out.length;
      if (size <= need) for (let j = 0; j < size; j++) out.push(at(j));
      else for (const j of this.rng.sampleDistinct(size, need)) out.push(at(j));
    }
    for (let i = 0; out.length < n && i < this.missing.length; i++) out.push(this.missing[i]!);
    return fillTo(out, n);
  }

  /** First position in [lo, hi) of the sorted difficulties whose value is ≥ v (hi if none). */
  private firstAtLeast(v: number, lo: number, hi: number): number {
    const vals = this.sortedDifficulty;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vals[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position in [lo, hi) whose value is > v (hi if none). */
  private firstAbove(v: number, lo: number, hi: number): number {
    const vals = this.sortedDifficulty;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vals[mid]! <= v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  protected override observe(batch: ObservedBatch): void {
    if (batch.size === 0) return;
    let sum = 0;
    let count = 0;
    for (let i = 0; i < batch.size; i++) {
      sum += batch.sum[i]!;
      count += batch.count[i]!;
    }
    const mean = sum / count;
    const { eta, alpha, beta } = this.p;
    this.targetDifficulty = Math.min(
      1,
      Math.max(0, this.targetDifficulty + eta * Math.tanh(alpha * (mean - beta))),
    );
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { target: encodeNumber(this.targetDifficulty) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.targetDifficulty = decodeNumber(data['target'], 'adarft target');
  }
}
