import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import { CategoryBandit } from './category-bandit.ts';
import { softmax } from './zoo-base.ts';

/**
 * SEC — Self-Evolving Curriculum (Chen et al., 2025, "Self-Evolving Curriculum for LLM Reasoning",
 * arXiv:2505.14970). The curriculum is a non-stationary multi-armed bandit whose arms are task
 * categories (a difficulty level or a domain). After each step, every category c that was drawn
 * gets the reward r_c = mean over its groups of the mean |advantage| (the learning gain), and its
 * value moves by TD(0):  Q(c) ← α·r_c + (1 − α)·Q(c).  Each batch slot draws a category from the
 * Boltzmann distribution  P(c) ∝ exp(Q(c) / τ),  then a task of that category uniformly.
 * Advantages are GRPO-normalised by default (the paper trains with GRPO); Q starts at 0.
 */
export const SecParamsSchema = z.strictObject({
  category: z
    .string()
    .min(1)
    .default('domain')
    .describe("'domain' or a feature column whose values are the arms"),
  learningRate: z.number().gt(0).max(1).default(0.5).describe('α of the TD(0) update'),
  temperature: z.number().positive().default(1).describe('τ of the Boltzmann distribution'),
  normalisedAdvantage: z.boolean().default(true),
});
export type SecParams = z.output<typeof SecParamsSchema>;

export class SecSelector extends CategoryBandit {
  readonly type = 'sec';
  private readonly p: SecParams;
  private q = new Float64Array(0);

  constructor(seed: number, params: SecParams) {
    super(seed, params);
    this.p = params;
  }

  protected onCategories(count: number): void {
    this.q = new Float64Array(count);
  }

  /** Q value per category name. */
  values(): Record<string, number> {
    return Object.fromEntries(this.names.map((n, c) => [n, this.q[c]!]));
  }

  /** The Boltzmann distribution over categories, per category name. */
  distribution(): Record<string, number> {
    const pr = this.categoryProbabilities();
    return Object.fromEntries(this.names.map((n, c) => [n, pr[c]!]));
  }

  protected categoryProbabilities(): Float64Array {
    return softmax(this.q, this.p.temperature);
  }

  /** TD(0) toward each drawn category's mean gain; categories not drawn keep their value. */
  protected credit(gains: ReadonlyArray<{ category: number; gain: number }>): void {
    const sum = new Float64Array(this.names.length);
    const count = new Int32Array(this.names.length);
    for (const { category, gain } of gains) {
      sum[category]! += gain;
      count[category]!++;
    }
    const a = this.p.learningRate;
    for (let c = 0; c < this.q.length; c++)
      if (count[c]! > 0) this.q[c] = a * (sum[c]! / count[c]!) + (1 - a) * this.q[c]!;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { q: encodeArray(this.q) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.q = decodeArray(data['q'], 'float64', 'sec q', this.names.length);
  }
}
