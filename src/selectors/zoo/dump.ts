import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import { CategoryBandit } from './category-bandit.ts';
import { softmax } from './zoo-base.ts';

/**
 * DUMP — distribution-level curriculum (Wang et al., 2025, "DUMP: Automated Distribution-Level
 * Curriculum Learning for RL-based LLM Post-training", arXiv:2504.09710). Each distribution j (a
 * domain or the values of a feature column) keeps a sliding window of the last `window` prompts'
 * mean |advantage| (the learnability estimate L̂_j) and the count n_j of prompts drawn from it.
 * Its UCB score is  U_j = L̂_j + c·√(2·ln(Σ n) / n_j)  (+∞ while n_j = 0), and the batch draws
 * distributions from softmax(U / τ), then prompts uniformly within. Advantages are GRPO-normalised.
 * Inferred: n_j counts prompts whose feedback arrived (not just selected); the window is per
 * distribution.
 */
export const DumpParamsSchema = z.strictObject({
  category: z
    .string()
    .min(1)
    .default('domain')
    .describe("'domain' or a feature column whose values are the distributions"),
  window: z.number().int().min(1).default(300).describe('recent prompts per distribution in L̂'),
  exploration: z.number().nonnegative().default(1).describe('c, the weight of the UCB bonus'),
  temperature: z.number().positive().default(0.1).describe('τ of the softmax over UCB scores'),
  normalisedAdvantage: z.boolean().default(true),
});
export type DumpParams = z.output<typeof DumpParamsSchema>;

export class DumpSelector extends CategoryBandit {
  readonly type = 'dump';
  private readonly p: DumpParams;
  /** Ring buffers, `window` entries per distribution, and how many were written per distribution. */
  private ring = new Float64Array(0);
  private drawn = new Float64Array(0);

  constructor(seed: number, params: DumpParams) {
    super(seed, params);
    this.p = params;
  }

  protected onCategories(count: number): void {
    this.ring = new Float64Array(count * this.p.window);
    this.drawn = new Float64Array(count);
  }

  /** UCB score per distribution (Infinity while a distribution has no sample). */
  scores(): Float64Array {
    const d = this.names.length;
    const W = this.p.window;
    let total = 0;
    for (let j = 0; j < d; j++) total += this.drawn[j]!;
    const out = new Float64Array(d);
    for (let j = 0; j < d; j++) {
      const nj = this.drawn[j]!;
      if (nj === 0) {
        out[j] = Number.POSITIVE_INFINITY;
        continue;
      }
      const len = Math.min(nj, W);
      let s = 0;
      for (let i = 0; i < len; i++) s += this.ring[j * W + i]!;
      out[j] = s / len + this.p.exploration * Math.sqrt((2 * Math.log(total)) / nj);
    }
    return out;
  }

  /** Sampling probabilities: uniform over unsampled distributions while any is left, else softmax(U/τ). */
  distribution(): Float64Array {
    const u = this.scores();
    const inf = Array.from(u).filter((x) => x === Number.POSITIVE_INFINITY).length;
    if (inf > 0) return Float64Array.from(u, (x) => (x === Number.POSITIVE_INFINITY ? 1 / inf : 0));
    return softmax(u, this.p.temperature);
  }

  protected categoryProbabilities(): Float64Array {
    return this.distribution();
  }

  /** Each group's gain goes into its distribution's window (the oldest entry makes room). */
  protected credit(gains: ReadonlyArray<{ category: number; gain: number }>): void {
    const W = this.p.window;
    for (const { category: j, gain } of gains) {
      const slot = this.drawn[j]! % W;
      this.ring[j * W + slot] = gain;
      this.drawn[j]!++;
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { ring: encodeArray(this.ring), drawn: encodeArray(this.drawn) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.ring = decodeArray(data['ring'], 'float64', 'dump ring', this.names.length * this.p.window);
    this.drawn = decodeArray(data['drawn'], 'float64', 'dump drawn', this.names.length);
  }
}
