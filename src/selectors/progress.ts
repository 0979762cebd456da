import { z } from 'zod';
import { DataError, WinnowError } from '../core/errors.ts';
import { hashSeed } from '../core/rng.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { drawCandidates } from './headroom-levels.ts';
import { learnability, learningProgress, progressShares } from './progress-rule.ts';
import { SharedAbilitySelector } from './shared-ability.ts';
import { decodeArray, encodeArray } from './state-codec.ts';
import type {
  SelectContext,
  SelectorFeedbackReport,
  SelectorState,
  SelectorTaskView,
  TaskFeedback,
} from './types.ts';
import { drawWeighted, fillTo, membersByCategory, taskCategories } from './zoo/zoo-base.ts';

/**
 * `progress`: Winnow's learning-progress selector (docs/selection-zoo.md, "`progress`"). The batch
 * is split over categories (levels, domains) by measured learning progress — the change of the
 * category's pass rate over its recent groups, in absolute value — on top of a floor that is
 * uniform random selection's own split; within a category, each slot takes the most learnable of
 * `candidates` uniform draws (4p(1 − p) under a pooled pass-rate model), or a uniform draw when
 * `candidates` is 1. Only rewards of groups the run paid for are used.
 */
export const ProgressParamsSchema = z.strictObject({
  category: z
    .string()
    .min(1)
    .default('domain')
    .describe("'domain' or a feature column whose values are the categories"),
  floor: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('φ: share of the batch split over categories as uniform random selection splits it'),
  fastHorizon: z
    .number()
    .int()
    .min(1)
    .default(8)
    .describe('groups in the fast running mean of a category’s pass rate'),
  slowHorizon: z
    .number()
    .int()
    .min(1)
    .default(32)
    .describe('groups in the slow running mean of a category’s pass rate'),
  candidates: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe(
      'uniform draws per slot within the category; the most learnable under the pass-rate model is taken (1: uniform)',
    ),
});
export type ProgressParams = z.output<typeof ProgressParamsSchema>;

export class ProgressSelector extends BaseSelector {
  readonly type = 'progress';
  private readonly p: ProgressParams;
  /** The pooled pass-rate model that ranks a slot's candidates (only when candidates > 1). */
  private readonly model: SharedAbilitySelector | null;
  private codes: Int32Array = new Int32Array(0);
  private names: string[] = [];
  private members: Int32Array[] = [];
  private sizes: Int32Array = new Int32Array(0);
  /** Per category: groups seen, and the fast and slow running means of their mean rewards. */
  private seen = new Float64Array(0);
  private fast = new Float64Array(0);
  private slow = new Float64Array(0);

  constructor(seed: number, params: ProgressParams) {
    super(seed);
    if (params.slowHorizon < params.fastHorizon)
      throw new WinnowError(
        `progress: slowHorizon (${params.slowHorizon}) must be at least fastHorizon (${params.fastHorizon})`,
      );
    this.p = params;
    this.model =
      params.candidates > 1
        ? new SharedAbilitySelector(hashSeed('progress-model', seed), { mode: 'expected', shortlist: 0 })
        : null;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.model?.init(view);
    const oneCategory = this.p.category === 'domain' && view.domains === undefined;
    if (oneCategory) this.notice('progress: the tasks have no domains, so the whole pool is one category');
    const { codes, names } = oneCategory
      ? { codes: new Int32Array(view.ids.length), names: ['all'] }
      : taskCategories(view, this.p.category, 'progress');
    this.codes = codes;
    this.names = names;
    this.members = membersByCategory(codes, names.length);
    this.sizes = Int32Array.from(this.members, (m) => m.length);
    this.seen = new Float64Array(names.length);
    this.fast = new Float64Array(names.length);
    this.slow = new Float64Array(names.length);
  }

  protected override onAddTasks(_view: SelectorTaskView, _offset: number): void {
    throw new WinnowError(
      'progress: tasks cannot be added mid-run (its categories are fixed at init); start a new run with all tasks',
    );
  }

  /** Each category's share of the next batch, per category name. */
  shares(): Record<string, number> {
    const s = this.currentShares();
    return Object.fromEntries(this.names.map((n, c) => [n, s[c]!]));
  }

  /** Each category's learning progress |fast − slow|, per category name. */
  progress(): Record<string, number> {
    const lp = learningProgress(this.fast, this.slow);
    return Object.fromEntries(this.names.map((n, c) => [n, lp[c]!]));
  }

  predict(taskIds: readonly string[]): Float64Array {
    if (this.model) return this.model.predict(taskIds);
    // Without a model: the category's fast running mean (NaN before its first group).
    const idx = this.indicesOf(taskIds);
    return Float64Array.from(idx, (k) => {
      if (k < 0) return Number.NaN;
      const c = this.codes[k]!;
      return this.seen[c]! > 0 ? this.fast[c]! : Number.NaN;
    });
  }

  private currentShares(): Float64Array {
    return progressShares(learningProgress(this.fast, this.slow), this.sizes, this.p.floor);
  }

  protected pick(n: number): Int32Array {
    const take = Math.min(n, this.ids.length);
    const shares = this.currentShares();
    const taken = new Set<number>();
    const used = new Int32Array(this.members.length);
    const out: number[] = [];
    while (out.length < take) {
      let c = drawWeighted(this.rng, shares);
      if (c === null) {
        // Every weighted category is used up: spread the rest over categories with tasks left.
        for (let j = 0; j < shares.length; j++) shares[j] = used[j]! < this.members[j]!.length ? 1 : 0;
        c = drawWeighted(this.rng, shares);
        if (c === null) break;
      }
      const pool = drawCandidates(this.rng, this.members[c]!, taken, this.p.candidates);
      if (pool.length === 0) {
        shares[c] = 0;
        continue;
      }
      const k = this.mostLearnable(pool);
      taken.add(k);
      out.push(k);
      if (++used[c]! >= this.members[c]!.length) shares[c] = 0;
    }
    return fillTo(out, n);
  }

  /** The candidate with the highest 4p(1 − p) under the model (the first drawn on ties). */
  private mostLearnable(pool: readonly number[]): number {
    if (!this.model || pool.length === 1) return pool[0]!;
    const rates = this.model.predict(pool.map((k) => this.ids[k]!));
    let best = 0;
    for (let i = 1; i < pool.length; i++) if (learnability(rates[i]!) > learnability(rates[best]!)) best = i;
    return pool[best]!;
  }

  override feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    this.requireInit('feedback');
    this.model?.feedback(results, ctx);
    return super.feedback(results, ctx);
  }

  /** One tick of the category's clock per group: its mean reward moves both running means. */
  protected override observe(batch: ObservedBatch): void {
    const { fastHorizon, slowHorizon } = this.p;
    for (let i = 0; i < batch.size; i++) {
      const c = this.codes[batch.idx[i]!]!;
      const r = batch.mean[i]!;
      const seen = ++this.seen[c]!;
      this.fast[c]! += (r - this.fast[c]!) / Math.min(seen, fastHorizon);
      this.slow[c]! += (r - this.slow[c]!) / Math.min(seen, slowHorizon);
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      ...(this.model ? { model: this.model.state() as unknown as JsonValue } : {}),
      seen: encodeArray(this.seen),
      fast: encodeArray(this.fast),
      slow: encodeArray(this.slow),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    if (this.model) {
      const model = data['model'];
      if (model === null || typeof model !== 'object' || Array.isArray(model))
        throw new DataError({ message: 'progress.load: state.data.model must be the pass-rate model state' });
      this.model.load(model as unknown as SelectorState);
    }
    const count = this.names.length;
    this.seen = decodeArray(data['seen'], 'float64', 'progress group counts', count);
    this.fast = decodeArray(data['fast'], 'float64', 'progress fast means', count);
    this.slow = decodeArray(data['slow'], 'float64', 'progress slow means', count);
  }
}
