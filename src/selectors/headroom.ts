import { z } from 'zod';
import { DataError, WinnowError } from '../core/errors.ts';
import { hashSeed } from '../core/rng.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import {
  categoryHeadroom,
  categoryShares,
  drawCandidates,
  headroomScore,
  mixedRate,
  sampleMembers,
} from './headroom-levels.ts';
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
 * `headroom`: Winnow's selector that gives each category (level, domain) a share of the batch by
 * how much a group there is worth — how often its groups come back mixed times how much the
 * category still has to learn — instead of ranking tasks only by closeness to 0.5
 * (docs/selection-zoo.md, "headroom"). Per select:
 *   share_c = (1 − ε)·w_c / Σ w + ε / C,   w_c = m̂_c · h_c^κ,
 * m̂_c = (a_c + 1) / (a_c + b_c + 2) from the category's mixed (a) and uniform (b) groups, both
 * multiplied by λ at every feedback call (Beta posteriors with forgetting, as MoPPS per task), and
 * h_c = 1 − the mean predicted pass rate of a fixed seeded sample of the category. The pass-rate
 * model is shared_ability's (pooled ability through domain offsets and reference columns, per-task
 * residuals, practice), fed only with the rewards of groups the run paid for. Each slot draws a
 * category from the shares and takes the model's next candidate there (its own order of the
 * `candidates` × n tasks it proposes), or, when the model proposed none there, the best of
 * `candidates` uniform draws from the category by 4p(1 − p).
 */
export const HeadroomParamsSchema = z.strictObject({
  target: z.number().gt(0).lt(1).default(0.5).describe("p* of the pass-rate model's own candidate order"),
  mode: z
    .enum(['expected', 'thompson'])
    .default('thompson')
    .describe('how the pass-rate model orders its candidates (shared_ability mode)'),
  features: z
    .array(z.string().min(1))
    .default([])
    .describe('further numeric columns the pass-rate model regresses on'),
  candidates: z
    .number()
    .int()
    .min(1)
    .default(4)
    .describe(
      "the model proposes this many × n tasks; also the uniform draws per slot once a category's proposals are used up",
    ),
  headroomPower: z.number().nonnegative().default(1).describe('κ: the weight of the category headroom'),
  category: z
    .string()
    .min(1)
    .default('domain')
    .describe("'domain' or a feature column whose values are the categories"),
  sample: z
    .number()
    .int()
    .min(1)
    .default(32)
    .describe('tasks per category whose predictions give its headroom'),
  explore: z
    .number()
    .min(0)
    .max(1)
    .default(0.1)
    .describe('share of the batch spread uniformly over categories'),
  forget: z
    .number()
    .min(0)
    .max(1)
    .default(0.95)
    .describe("λ: each feedback call keeps this share of a category's mixed/uniform counts"),
});
export type HeadroomParams = z.output<typeof HeadroomParamsSchema>;

export class HeadroomSelector extends BaseSelector {
  readonly type = 'headroom';
  private readonly p: HeadroomParams;
  private readonly model: SharedAbilitySelector;
  private codes: Int32Array = new Int32Array(0);
  private members: Int32Array[] = [];
  private sizes: Int32Array = new Int32Array(0);
  private samples: Int32Array[] = [];
  /** Per category: mixed and uniform groups seen, with forgetting (see mixedRate). */
  private mixed = new Float64Array(0);
  private uniform = new Float64Array(0);
  private sampleIds: string[] = [];

  constructor(seed: number, params: HeadroomParams) {
    super(seed);
    this.p = params;
    this.model = new SharedAbilitySelector(hashSeed('headroom-model', seed), {
      target: params.target,
      mode: params.mode,
      features: params.features,
      shortlist: 0,
    });
  }

  protected override onInit(view: SelectorTaskView): void {
    this.model.init(view);
    const oneCategory = this.p.category === 'domain' && view.domains === undefined;
    if (oneCategory) this.notice('headroom: the tasks have no domains, so every task shares one headroom');
    const { codes, names } = oneCategory
      ? { codes: new Int32Array(view.ids.length), names: ['all'] }
      : taskCategories(view, this.p.category, 'headroom');
    this.codes = codes;
    this.members = membersByCategory(codes, names.length);
    this.sizes = Int32Array.from(this.members, (m) => m.length);
    this.samples = sampleMembers(this.members, this.p.sample, this.seed);
    this.mixed = new Float64Array(names.length);
    this.uniform = new Float64Array(names.length);
    this.sampleIds = this.samples.flatMap((m) => Array.from(m, (k) => this.ids[k]!));
  }

  protected override onAddTasks(_view: SelectorTaskView, _offset: number): void {
    throw new WinnowError(
      'headroom: tasks cannot be added mid-run (its category samples are fixed at init); start a new run with all tasks',
    );
  }

  /** Each category's headroom now (1 − mean predicted pass rate of its sample), in category order. */
  headroom(): Float64Array {
    return categoryHeadroom(this.samples, this.model.predict(this.sampleIds));
  }

  predict(taskIds: readonly string[]): Float64Array {
    return this.model.predict(taskIds);
  }

  protected pick(n: number): Int32Array {
    const take = Math.min(n, this.ids.length);
    const predicted = this.model.predict(this.sampleIds);
    const shares = categoryShares(
      mixedRate(this.mixed, this.uniform),
      categoryHeadroom(this.samples, predicted),
      this.p.headroomPower,
      this.p.explore,
      this.sizes,
    );
    // The model's own best candidates (its order: closeness to p*), queued per category.
    const queues = this.members.map((): number[] => []);
    for (const id of this.model.select(Math.min(this.ids.length, take * this.p.candidates))) {
      const k = this.index.get(id)!;
      queues[this.codes[k]!]!.push(k);
    }
    const head = new Int32Array(this.members.length);
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
      const queue = queues[c]!;
      if (head[c]! < queue.length) {
        const k = queue[head[c]!++]!;
        taken.add(k);
        out.push(k);
        if (++used[c]! >= this.members[c]!.length) shares[c] = 0;
        continue;
      }
      const pool = drawCandidates(this.rng, this.members[c]!, taken, this.p.candidates);
      if (pool.length === 0) {
        shares[c] = 0;
        continue;
      }
      const rates = this.model.predict(pool.map((k) => this.ids[k]!));
      let best = 0;
      for (let i = 1; i < pool.length; i++)
        if (headroomScore(rates[i]!, 1, 0) > headroomScore(rates[best]!, 1, 0)) best = i;
      taken.add(pool[best]!);
      out.push(pool[best]!);
      if (++used[c]! >= this.members[c]!.length) shares[c] = 0;
    }
    return fillTo(out, n);
  }

  override feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    this.requireInit('feedback');
    this.model.feedback(results, ctx);
    return super.feedback(results, ctx);
  }

  protected override observe(batch: ObservedBatch): void {
    const lambda = this.p.forget;
    for (let c = 0; c < this.mixed.length; c++) {
      this.mixed[c]! *= lambda;
      this.uniform[c]! *= lambda;
    }
    for (let i = 0; i < batch.size; i++) {
      const c = this.codes[batch.idx[i]!]!;
      if (batch.mixed[i]) this.mixed[c]!++;
      else this.uniform[c]!++;
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      model: this.model.state() as unknown as JsonValue,
      mixed: encodeArray(this.mixed),
      uniform: encodeArray(this.uniform),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const model = data['model'];
    if (model === null || typeof model !== 'object' || Array.isArray(model))
      throw new DataError({ message: 'headroom.load: state.data.model must be the pass-rate model state' });
    this.model.load(model as unknown as SelectorState);
    this.mixed = decodeArray(data['mixed'], 'float64', 'headroom mixed counts', this.mixed.length);
    this.uniform = decodeArray(data['uniform'], 'float64', 'headroom uniform counts', this.uniform.length);
  }
}
