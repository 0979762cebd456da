import { z } from 'zod';
import { BetaDistance } from '../../core/beta-dist.ts';
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
 *
 * Scale: a prompt never observed keeps the prior, so its draws are independent and identically
 * distributed. Only the B smallest distances among them can be picked, and those are drawn directly
 * as order statistics of |p̂ − γ*| under the prior (BetaDistance), each given to a distinct unobserved
 * prompt chosen uniformly. Each observed prompt gets its own draw. The batch has the same
 * distribution as one draw per prompt, at O(B + observed prompts) a step instead of O(N) (one Beta
 * draw per prompt was 0.17–0.7 s a step at 10⁶ prompts).
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
  /** Prompts whose posterior is not the prior, in index order (a function of α and β alone). */
  private observed = new Int32Array(0);
  private readonly priorDistance: BetaDistance;

  constructor(seed: number, params: MoppsParams) {
    super(seed);
    this.p = params;
    this.priorDistance = new BetaDistance(params.priorAlpha, params.priorBeta, params.target);
  }

  protected override onInit(view: SelectorTaskView): void {
    this.alpha = new Float64Array(view.ids.length).fill(this.p.priorAlpha);
    this.beta = new Float64Array(view.ids.length).fill(this.p.priorBeta);
    this.observed = new Int32Array(0);
  }

  private atPrior(k: number): boolean {
    return this.alpha[k] === this.p.priorAlpha && this.beta[k] === this.p.priorBeta;
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
    const target = this.p.target;
    for (const k of this.observed) {
      const draw = this.rng.beta(this.alpha[k]!, this.beta[k]!);
      top.offer(Math.abs(draw - target), k, tieRank(k, salt));
    }
    const unobserved = size - this.observed.length;
    const m = Math.min(n, unobserved);
    if (m > 0) {
      const chosen = this.unobservedSample(m);
      // Rényi: the j-th smallest of U uniforms is 1 − exp(−Σ_{i≤j} E_i / (U − i + 1)), E_i ~ Exp(1).
      let sum = 0;
      for (let j = 0; j < m; j++) {
        sum += -Math.log1p(-this.rng.float()) / (unobserved - j);
        const distance = this.priorDistance.quantile(-Math.expm1(-sum));
        if (distance > top.bound) break; // every later one is at least as far
        const k = chosen[j]!;
        top.offer(distance, k, tieRank(k, salt));
      }
    }
    return fillTo(top.sorted(), n);
  }

  /** `m` distinct unobserved prompts, uniformly (Floyd's sampling of ranks, then shuffled). */
  private unobservedSample(m: number): Int32Array {
    const u = this.ids.length - this.observed.length;
    const ranks = new Set<number>();
    for (let j = u - m; j < u; j++) {
      const t = this.rng.int(j + 1);
      ranks.add(ranks.has(t) ? j : t);
    }
    const out = Int32Array.from(ranks, (r) => this.unobservedAt(r));
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.rng.int(i + 1);
      const t = out[i]!;
      out[i] = out[j]!;
      out[j] = t;
    }
    return out;
  }

  /** The index of the r-th unobserved prompt (0-based): r plus the observed ones before it. */
  private unobservedAt(r: number): number {
    const obs = this.observed;
    // Observed indices i with obs[i] − i ≤ r all lie before it (obs[i] − i is non-decreasing).
    let lo = 0;
    let hi = obs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (obs[mid]! - mid <= r) lo = mid + 1;
      else hi = mid;
    }
    return r + lo;
  }

  protected override observe(batch: ObservedBatch): void {
    const { retention: l, priorAlpha: a0, priorBeta: b0 } = this.p;
    const moved = new Set<number>();
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const s = batch.sum[i]!;
      const m = batch.count[i]!;
      const wasPrior = this.atPrior(k);
      this.alpha[k] = l * this.alpha[k]! + (1 - l) * a0 + s;
      this.beta[k] = l * this.beta[k]! + (1 - l) * b0 + (m - s);
      if (wasPrior !== this.atPrior(k)) moved.add(k);
    }
    if (moved.size > 0) this.updateObserved(moved);
  }

  /**
   * Merge the prompts that left the prior into the observed list, and drop those an update brought
   * back onto it exactly: O(observed + batch), the list stays in index order.
   */
  private updateObserved(moved: Set<number>): void {
    const added = [...moved].filter((k) => !this.atPrior(k)).sort((a, b) => a - b);
    const out = new Int32Array(this.observed.length + added.length);
    let n = 0;
    let j = 0;
    for (const k of this.observed) {
      while (j < added.length && added[j]! < k) out[n++] = added[j++]!;
      if (!moved.has(k)) out[n++] = k;
    }
    while (j < added.length) out[n++] = added[j++]!;
    this.observed = out.slice(0, n);
  }

  /** The prompts off the prior, from α and β alone (on load). */
  private collectObserved(): void {
    const out: number[] = [];
    for (let k = 0; k < this.ids.length; k++) if (!this.atPrior(k)) out.push(k);
    this.observed = Int32Array.from(out);
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { alpha: encodeArray(this.alpha), beta: encodeArray(this.beta) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    this.alpha = decodeArray(data['alpha'], 'float64', 'mopps alpha', n);
    this.beta = decodeArray(data['beta'], 'float64', 'mopps beta', n);
    this.collectObserved();
  }
}
