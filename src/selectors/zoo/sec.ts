import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import {
  drawByCategory,
  meanAbsAdvantage,
  membersByCategory,
  softmax,
  taskCategories,
  ZooSelector,
} from './zoo-base.ts';

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

export class SecSelector extends ZooSelector {
  readonly type = 'sec';
  private readonly p: SecParams;
  private codes: Int32Array = new Int32Array(0);
  private names: string[] = [];
  private members: Int32Array[] = [];
  private q = new Float64Array(0);

  constructor(seed: number, params: SecParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    const { codes, names } = taskCategories(view, this.p.category, 'sec');
    this.codes = codes;
    this.names = names;
    this.members = membersByCategory(codes, names.length);
    this.q = new Float64Array(names.length);
  }

  /** Q value per category name. */
  values(): Record<string, number> {
    return Object.fromEntries(this.names.map((n, c) => [n, this.q[c]!]));
  }

  /** The Boltzmann distribution over categories, per category name. */
  distribution(): Record<string, number> {
    const pr = softmax(this.q, this.p.temperature);
    return Object.fromEntries(this.names.map((n, c) => [n, pr[c]!]));
  }

  protected pick(n: number): Int32Array {
    return drawByCategory(this.rng, this.members, softmax(this.q, this.p.temperature), n);
  }

  protected override observe(batch: ObservedBatch): void {
    const sum = new Float64Array(this.names.length);
    const count = new Int32Array(this.names.length);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const c = this.codes[k]!;
      sum[c]! += meanAbsAdvantage(this.groupRewards.get(k) ?? [], this.p.normalisedAdvantage);
      count[c]!++;
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
