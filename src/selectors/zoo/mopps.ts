import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { tieRank } from '../hash-tie.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import { TopK } from '../top-k.ts';
import type { SelectorTaskView } from '../types.ts';
import { fillTo, ZooSelector } from './zoo-base.ts';

/**
 * MoPPS — Model Predictive Prompt Selection (Qu et al., 2025, "Can Prompt Difficulty be Online
 * Predicted for Accelerating RL Finetuning of Reasoning Models?", arXiv:2507.04632).
 * Each prompt's success rate is a latent Beta(α, β); after a prompt's group of k rollouts with s
 * successes, its posterior is discounted toward the prior and updated:
 *   α ← λ·α + (1 − λ)·α0 + s,   β ← λ·β + (1 − λ)·β0 + (k − s).
 * Selection is Thompson sampling: one draw p̂ ~ Beta(α, β) per prompt, the B prompts with p̂
 * closest to the target rate γ*. Inferred: the retention λ applies only to prompts that are
 * observed (others keep their posterior); partial-credit rewards count as fractional successes.
 */
export const MoppsParamsSchema = z.strictObject({
  target: z.number().gt(0).lt(1).default(0.5).describe('target success rate γ* the draws are ranked against'),
  retention: z.number().min(0).max(1).default(0.5).describe('λ: share of old evidence kept at each update'),
  priorAlpha: z.number().positive().default(1),
  priorBeta: z.number().positive().default(1),
});
export type MoppsParams = z.output<typeof MoppsParamsSchema>;

export class MoppsSelector extends ZooSelector {
  readonly type = 'mopps';
  private readonly p: MoppsParams;
  private alpha = new Float64Array(0);
  private beta = new Float64Array(0);

  constructor(seed: number, params: MoppsParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.alpha = new Float64Array(view.ids.length).fill(this.p.priorAlpha);
    this.beta = new Float64Array(view.ids.length).fill(this.p.priorBeta);
  }

  /** The posterior of one task (for tests and reports). */
  posterior(taskId: string): { alpha: number; beta: number } {
    const k = this.index.get(taskId) ?? -1;
    return { alpha: this.alpha[k] ?? Number.NaN, beta: this.beta[k] ?? Number.NaN };
  }

  predict(taskIds: readonly string[]): Float64Array {
    const idx = this.indicesOf(taskIds);
    return Float64Array.from(idx, (k) =>
      k < 0 ? Number.NaN : this.alpha[k]! / (this.alpha[k]! + this.beta[k]!),
    );
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const top = new TopK(Math.min(n, size));
    const salt = this.rng.nextUint32();
    for (let k = 0; k < size; k++) {
      const draw = this.rng.beta(this.alpha[k]!, this.beta[k]!);
      top.offer(Math.abs(draw - this.p.target), k, tieRank(k, salt));
    }
    return fillTo(top.sorted(), n);
  }

  protected override observe(batch: ObservedBatch): void {
    const { retention: l, priorAlpha: a0, priorBeta: b0 } = this.p;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const s = batch.sum[i]!;
      const m = batch.count[i]!;
      this.alpha[k] = l * this.alpha[k]! + (1 - l) * a0 + s;
      this.beta[k] = l * this.beta[k]! + (1 - l) * b0 + (m - s);
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { alpha: encodeArray(this.alpha), beta: encodeArray(this.beta) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    this.alpha = decodeArray(data['alpha'], 'float64', 'mopps alpha', n);
    this.beta = decodeArray(data['beta'], 'float64', 'mopps beta', n);
  }
}
