import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { tieRank } from './hash-tie.ts';
import { checkRates } from './reference-rates.ts';
import { AbilityModel, logit, sigmoid } from './shared-ability-model.ts';
import { SHARED_ABILITY_DEFAULTS, type SharedAbilityParams } from './shared-ability-params.ts';
import { scanTasks, UnobservedGrid } from './shared-ability-scan.ts';
import { loadAbility, saveAbility } from './shared-ability-state.ts';
import { observeBatch } from './shared-ability-update.ts';
import { TopK } from './top-k.ts';
import type { SelectorFeedbackReport, SelectorTaskView } from './types.ts';

export { SHARED_ABILITY_DEFAULTS, type SharedAbilityParams } from './shared-ability-params.ts';

/**
 * The successor to BOTS: a Bayesian shared-ability model in log-odds space,
 *   logit p_k = w·x_k + c_domain(k) + r_k,
 * where x_k holds the task's reference log-odds (ℓ_weak, ℓ_strong; with w = (1 − x, x) this is the
 * interpolation ℓ_weak + x·(ℓ_strong − ℓ_weak) at the learner's position x) and any extra features,
 * c are per-domain offsets and r_k a per-task residual. The shared part (w, c) has a joint
 * Gaussian posterior that drifts a little every step (the learner moves); residuals have
 * independent Gaussian posteriors. Each rollout group is folded in by a Laplace step on its
 * binomial likelihood (assumed-density filtering). Because the reference weights are learned,
 * noisy or useless reference columns are down-weighted by the data, and without them the model
 * still has domain offsets and residuals. The residual scale and the gain a task gets from being
 * trained on are estimated online.
 */
export class SharedAbilitySelector extends BaseSelector {
  readonly type = 'shared_ability';
  readonly params: SharedAbilityParams;
  /** The posterior (shared-ability-model.ts), updated by shared-ability-update.ts. */
  private readonly model: AbilityModel;
  private readonly grid = new UnobservedGrid();

  constructor(seed: number, params: Partial<SharedAbilityParams> = {}) {
    super(seed);
    this.params = { ...SHARED_ABILITY_DEFAULTS, ...params };
    this.model = new AbilityModel(this.params);
  }

  /** Posterior summary, for reports and tests. */
  summary(): {
    weights: number[];
    offsets: Record<string, number>;
    residualSd: number;
    practiceEffect: number;
  } {
    const m = this.model;
    const offsets: Record<string, number> = {};
    m.domainNames.forEach((name, d) => {
      offsets[name] = m.mu[m.dense + d]!;
    });
    return {
      weights: Array.from(m.mu.slice(0, m.xd)),
      offsets,
      residualSd: Math.sqrt(m.residualVar),
      practiceEffect: this.params.practiceEffect ? m.mu[m.xd]! : 0,
    };
  }

  protected override checkView(view: SelectorTaskView): void {
    for (const column of [this.params.weakColumn, this.params.strongColumn])
      checkRates(view, column, 'shared_ability');
  }

  protected override onInit(view: SelectorTaskView): void {
    this.model.init(view, (message) => this.notice(message));
    this.grid.reset();
  }

  protected override onAddTasks(view: SelectorTaskView, offset: number): void {
    this.model.addTasks(view, offset);
    this.grid.reset();
  }

  predict(taskIds: readonly string[]): Float64Array {
    const idx = this.indicesOf(taskIds);
    const out = new Float64Array(idx.length);
    const mv = new Float64Array(2);
    for (let i = 0; i < idx.length; i++) {
      const k = idx[i]!;
      if (k < 0) {
        out[i] = Number.NaN;
        continue;
      }
      this.model.moments(k, mv);
      out[i] = sigmoid(mv[0]! / Math.sqrt(1 + (Math.PI * mv[1]!) / 8));
    }
    return out;
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const take = Math.min(n, size);
    const p = this.params;
    if (p.candidates > 0 && size > take * p.candidates) return this.pickFromCandidates(n, take);
    const thompson = p.mode === 'thompson';
    const listSize =
      thompson && p.shortlist > 0 && size > Math.max(p.shortlist, take) ? Math.max(p.shortlist, take) : 0;
    const top = new TopK(thompson ? (listSize > 0 ? listSize : size) : take);
    scanTasks(this.model, this.grid, size, top, this.rng.nextUint32());
    const picked = thompson
      ? this.thompsonAmong(listSize > 0 ? top.indices() : null, size, take)
      : top.sorted();
    if (picked.length === n) return picked;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
  }

  /** The `take` tasks whose posterior draw lands closest to logit p*, among `candidates` (null: all `size`). */
  private thompsonAmong(candidates: Int32Array | null, size: number, take: number): Int32Array {
    const count = candidates ? candidates.length : size;
    const best = new TopK(take);
    const goal = logit(this.params.target);
    const mv = new Float64Array(2);
    for (let i = 0; i < count; i++) {
      const k = candidates ? candidates[i]! : i;
      this.model.moments(k, mv);
      const draw = mv[0]! + Math.sqrt(mv[1]!) * this.rng.normal();
      const key = Math.abs(draw - goal);
      if (key <= best.bound) best.offer(key, k);
    }
    return best.sorted();
  }

  /**
   * The `candidates` mode: `candidates`·take distinct tasks drawn uniformly, ranked by the same key
   * as the full search (expected usefulness, or the distance of a posterior draw to logit p*).
   */
  private pickFromCandidates(n: number, take: number): Int32Array {
    const p = this.params;
    const pool = this.rng.sampleDistinct(this.ids.length, take * p.candidates);
    const salt = this.rng.nextUint32();
    const goal = logit(p.target);
    const w2 = p.width * p.width;
    const top = new TopK(take);
    const mv = new Float64Array(2);
    const phi = new Float64Array(this.model.dim);
    for (const k of pool) {
      this.model.moments(k, mv, phi);
      let key: number;
      if (p.mode === 'thompson') key = Math.abs(mv[0]! + Math.sqrt(mv[1]!) * this.rng.normal() - goal);
      else {
        const s = w2 + mv[1]!;
        const e = mv[0]! - goal;
        key = (e * e) / s + Math.log(s);
      }
      top.offer(key, k, tieRank(k, salt));
    }
    const picked = top.sorted();
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
  }

  protected override observe(batch: ObservedBatch, _report: SelectorFeedbackReport): void {
    observeBatch(this.model, batch);
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return saveAbility(this.model);
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    loadAbility(this.model, data, this.ids.length);
    this.grid.reset();
  }
}
