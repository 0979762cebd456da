import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { growTyped } from '../core/typed-grow.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { autoGrid, CellIndex, CellQueue } from './cell-index.ts';
import { tieRank } from './hash-tie.ts';
import type { Quadratic } from './quadratic-box.ts';
import { checkRates } from './reference-rates.ts';
import { cellBound, cellBounds, type KeyModel } from './shared-ability-bounds.ts';
import { decodeArray, encodeArray } from './state-codec.ts';
import { encodeDomains } from './task-view.ts';
import { TopK } from './top-k.ts';
import type { SelectorFeedbackReport, SelectorTaskView } from './types.ts';

export interface SharedAbilityParams {
  /** Target pass rate p*. */
  target: number;
  /** Reference pass-rate columns (used when both are present). */
  weakColumn: string;
  strongColumn: string;
  /** Further numeric columns used as regressors (standardised at init). */
  features: string[];
  /** Reference pass rates are clipped into [ε, 1 − ε] before taking log-odds. */
  refClip: number;
  /** Prior mean and sd of the two reference weights (learner's log-odds ≈ w_weak·ℓ_weak + w_strong·ℓ_strong). */
  priorWeakWeight: number;
  priorStrongWeight: number;
  priorWeightSd: number;
  /** Prior sd of each domain offset (and of the single offset when tasks have no domains). */
  priorOffsetSd: number;
  /** Per-step drift variance of the reference weights and of the domain offsets. */
  weightDrift: number;
  offsetDrift: number;
  /** Initial sd of the per-task residuals; learned online when `learnResidualSd`. */
  residualSd: number;
  learnResidualSd: boolean;
  /** Per-step drift variance of a task's residual after it has been observed. */
  residualDrift: number;
  /** Model the log-odds gain g of a task per time it was trained on (a group with mixed rewards). */
  practiceEffect: boolean;
  /** Prior mean and sd of g, and its per-step drift variance. */
  priorPractice: number;
  priorPracticeSd: number;
  practiceDrift: number;
  /** Step size of the online residual-scale estimate. */
  learningRate: number;
  /** `expected`: greedy on the expected usefulness; `thompson`: score a posterior draw per task. */
  mode: 'expected' | 'thompson';
  /** Width (log-odds) of the usefulness kernel around logit(p*) in `expected` mode. */
  width: number;
  /** Above this many tasks, `thompson` draws only for the best tasks by expected usefulness. 0 = all. */
  shortlist: number;
  /**
   * Pick among `candidates` × n tasks drawn uniformly (distinct) each select, instead of among all
   * tasks (0). PCL's candidate set: the batch stays spread over the pool while the model's shared
   * evidence ranks the candidates.
   */
  candidates: number;
  /** Cells per axis of the reference grid used to search never-observed tasks (0: ≈ √(N/64) per domain). */
  grid: number;
  /** `grid`: exact branch-and-bound over the grid; `scan`: score every task (the O(N) reference). */
  search: 'grid' | 'scan';
}

export const SHARED_ABILITY_DEFAULTS: SharedAbilityParams = {
  target: 0.5,
  weakColumn: 'weak_pass_rate',
  strongColumn: 'strong_pass_rate',
  features: [],
  refClip: 0.02,
  priorWeakWeight: 0,
  priorStrongWeight: 0,
  priorWeightSd: 1,
  priorOffsetSd: 1.5,
  weightDrift: 1e-4,
  offsetDrift: 1e-3,
  residualSd: 1,
  learnResidualSd: true,
  residualDrift: 0.01,
  practiceEffect: true,
  priorPractice: 0,
  priorPracticeSd: 0.5,
  practiceDrift: 1e-5,
  learningRate: 0.02,
  mode: 'expected',
  width: 1.5,
  shortlist: 1024,
  candidates: 0,
  grid: 0,
  search: 'grid',
};

const logit = (p: number): number => Math.log(p / (1 - p));
/** Stride of the interleaved per-observed-task columns. */
const OB = 6;
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

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
  /** Static regressors (reference log-odds, extra features), task-major: x[k·xd + j]. */
  private x = new Float64Array(0);
  private xd = 0;
  /** Times each task was trained on (groups with mixed rewards): the practice regressor. */
  private practiced = new Float64Array(0);
  /** Dense weights: the static regressors, then the practice gain when enabled. */
  private dense = 0;
  private useRefs = false;
  private extraMean: number[] = [];
  private extraSd: number[] = [];
  private refMeans: [number, number] = [0, 0];
  private domain = new Int32Array(0);
  private domainNames: string[] = [];
  /** Shared posterior: mean (dense weights then domain offsets) and covariance (row-major). */
  private mu = new Float64Array(0);
  private cov = new Float64Array(0);
  private rMean = new Float64Array(0);
  private rVar = new Float64Array(0);
  /** Step at which each residual was last updated (−1: never observed). */
  private seen = new Int32Array(0);
  /** 1 for tasks observed at least once, and those tasks as a list (for the selection scan). */
  private observed = new Uint8Array(0);
  private observedList = new Int32Array(64);
  private observedCount = 0;
  /** Copies of the observed tasks' columns in slot order, so the scan over them reads memory sequentially. */
  private slotOf = new Int32Array(0);
  /** Per slot, interleaved: x0, x1, practice, residual mean, residual variance, last step seen. */
  private obF = new Float64Array(64 * OB);
  private obDom = new Int32Array(64);
  private cells: CellIndex | null = null;
  /** Observed tasks when the grid was built: rebuilt once half its members have been observed. */
  private cellsBuiltAt = 0;
  private residualVar: number;
  private steps = 0;

  constructor(seed: number, params: Partial<SharedAbilityParams> = {}) {
    super(seed);
    this.params = { ...SHARED_ABILITY_DEFAULTS, ...params };
    this.residualVar = this.params.residualSd ** 2;
  }

  private get dim(): number {
    return this.dense + this.domainNames.length;
  }

  /** Posterior summary, for reports and tests. */
  summary(): {
    weights: number[];
    offsets: Record<string, number>;
    residualSd: number;
    practiceEffect: number;
  } {
    const offsets: Record<string, number> = {};
    this.domainNames.forEach((name, d) => {
      offsets[name] = this.mu[this.dense + d]!;
    });
    return {
      weights: Array.from(this.mu.slice(0, this.xd)),
      offsets,
      residualSd: Math.sqrt(this.residualVar),
      practiceEffect: this.params.practiceEffect ? this.mu[this.xd]! : 0,
    };
  }

  protected override checkView(view: SelectorTaskView): void {
    for (const column of [this.params.weakColumn, this.params.strongColumn])
      checkRates(view, column, 'shared_ability');
  }

  protected override onInit(view: SelectorTaskView): void {
    const p = this.params;
    this.useRefs = view.features[p.weakColumn] !== undefined && view.features[p.strongColumn] !== undefined;
    if (!this.useRefs)
      this.notice(
        `shared_ability: reference columns '${p.weakColumn}' and '${p.strongColumn}' are not both present; using domain offsets and per-task residuals only`,
      );
    for (const f of p.features)
      if (!view.features[f])
        throw new DataError({
          message: `shared_ability.init: the tasks have no feature column '${f}' (params.features)`,
        });
    this.xd = (this.useRefs ? 2 : 0) + p.features.length;
    this.dense = this.xd + (p.practiceEffect ? 1 : 0);
    if (this.useRefs) {
      this.refMeans = [
        this.meanLogit(view.features[p.weakColumn]!),
        this.meanLogit(view.features[p.strongColumn]!),
      ];
    }
    this.extraMean = p.features.map((f) => mean(view.features[f]!));
    this.extraSd = p.features.map((f, i) => sd(view.features[f]!, this.extraMean[i]!) || 1);
    const enc = encodeDomains(view.domains, view.ids.length);
    this.domain = enc.codes;
    this.domainNames = enc.names;
    this.x = this.regressors(view);
    const n = view.ids.length;
    this.rMean = new Float64Array(n);
    this.rVar = new Float64Array(n);
    this.practiced = new Float64Array(n);
    this.seen = new Int32Array(n).fill(-1);
    this.observed = new Uint8Array(n);
    this.slotOf = new Int32Array(n).fill(-1);
    this.cells = null;
    const P = this.dim;
    this.mu = new Float64Array(P);
    this.cov = new Float64Array(P * P);
    for (let j = 0; j < this.xd; j++) {
      const isRef = this.useRefs && j < 2;
      this.mu[j] = isRef ? (j === 0 ? p.priorWeakWeight : p.priorStrongWeight) : 0;
      this.cov[j * P + j] = p.priorWeightSd ** 2;
    }
    if (p.practiceEffect) {
      this.mu[this.xd] = p.priorPractice;
      this.cov[this.xd * P + this.xd] = p.priorPracticeSd ** 2;
    }
    for (let d = 0; d < this.domainNames.length; d++)
      this.cov[(this.dense + d) * P + this.dense + d] = p.priorOffsetSd ** 2;
  }

  protected override onAddTasks(view: SelectorTaskView, offset: number): void {
    const p = this.params;
    for (const f of p.features)
      if (!view.features[f])
        throw new DataError({ message: `shared_ability.addTasks: new tasks lack feature column '${f}'` });
    const oldP = this.dim;
    const enc = encodeDomains(view.domains, view.ids.length, this.domainNames);
    const added = enc.names.length - this.domainNames.length;
    if (added > 0) {
      // New domains start at the average offset with the prior's uncertainty.
      const P = oldP + added;
      const mu = new Float64Array(P);
      const cov = new Float64Array(P * P);
      mu.set(this.mu);
      for (let i = 0; i < oldP; i++) for (let j = 0; j < oldP; j++) cov[i * P + j] = this.cov[i * oldP + j]!;
      let avg = 0;
      for (let d = 0; d < this.domainNames.length; d++) avg += this.mu[this.dense + d]!;
      avg /= Math.max(1, this.domainNames.length);
      for (let j = oldP; j < P; j++) {
        mu[j] = avg;
        cov[j * P + j] = p.priorOffsetSd ** 2;
      }
      this.mu = mu;
      this.cov = cov;
    }
    this.domainNames = enc.names;
    const n = offset + view.ids.length;
    const dom = new Int32Array(n);
    dom.set(this.domain);
    dom.set(enc.codes, offset);
    this.domain = dom;
    const x = new Float64Array(n * this.xd);
    x.set(this.x);
    x.set(this.regressors(view), offset * this.xd);
    this.x = x;
    const grow = (a: Float64Array) => {
      const out = new Float64Array(n);
      out.set(a);
      return out;
    };
    this.rMean = grow(this.rMean);
    this.rVar = grow(this.rVar);
    this.practiced = grow(this.practiced);
    const seen = new Int32Array(n).fill(-1);
    seen.set(this.seen);
    this.seen = seen;
    const observed = new Uint8Array(n);
    observed.set(this.observed);
    this.observed = observed;
    const slotOf = new Int32Array(n).fill(-1);
    slotOf.set(this.slotOf);
    this.slotOf = slotOf;
    this.cells = null;
  }

  private meanLogit(col: Float64Array): number {
    let s = 0;
    let c = 0;
    for (let i = 0; i < col.length; i++) {
      const v = col[i]!;
      if (Number.isFinite(v)) {
        s += this.refLogit(v);
        c++;
      }
    }
    return c > 0 ? s / c : 0;
  }

  private refLogit(v: number): number {
    const e = this.params.refClip;
    return logit(Math.min(1 - e, Math.max(e, v)));
  }

  private regressors(view: SelectorTaskView): Float64Array<ArrayBuffer> {
    const n = view.ids.length;
    const D = this.xd;
    const x = new Float64Array(n * D);
    const p = this.params;
    const cols: Array<{ col: Float64Array; f: (v: number) => number; fill: number }> = [];
    if (this.useRefs) {
      const weak = view.features[p.weakColumn];
      const strong = view.features[p.strongColumn];
      // A task set added later may lack the columns: those tasks get the average reference.
      cols.push({
        col: weak ?? new Float64Array(n).fill(Number.NaN),
        f: (v) => this.refLogit(v),
        fill: this.refMeans[0],
      });
      cols.push({
        col: strong ?? new Float64Array(n).fill(Number.NaN),
        f: (v) => this.refLogit(v),
        fill: this.refMeans[1],
      });
    }
    p.features.forEach((name, i) => {
      const m = this.extraMean[i]!;
      const s = this.extraSd[i]!;
      cols.push({ col: view.features[name]!, f: (v) => (v - m) / s, fill: 0 });
    });
    for (let j = 0; j < cols.length; j++) {
      const { col, f, fill } = cols[j]!;
      for (let k = 0; k < n; k++) {
        const v = col[k]!;
        x[k * D + j] = Number.isFinite(v) ? f(v) : fill;
      }
    }
    return x;
  }

  /** Task k's regressors: dense part then the domain indicator (length = dim). */
  private fillPhi(k: number, phi: Float64Array): void {
    phi.fill(0);
    const xd = this.xd;
    for (let j = 0; j < xd; j++) phi[j] = this.x[k * xd + j]!;
    if (this.params.practiceEffect) phi[xd] = this.practiced[k]!;
    phi[this.dense + this.domain[k]!] = 1;
  }

  /** Prior-predictive mean and variance of task k's log-odds at the current step. */
  private moments(k: number, out: Float64Array, phi: Float64Array = new Float64Array(this.dim)): void {
    const P = this.dim;
    this.fillPhi(k, phi);
    let m = this.rMean[k]!;
    let v = this.residualVariance(k);
    for (let i = 0; i < P; i++) {
      const fi = phi[i]!;
      if (fi === 0) continue;
      m += this.mu[i]! * fi;
      for (let j = 0; j < P; j++) v += fi * phi[j]! * this.cov[i * P + j]!;
    }
    out[0] = m;
    out[1] = v;
  }

  private residualVariance(k: number): number {
    const t = this.seen[k]!;
    if (t < 0) return this.residualVar;
    return Math.min(this.residualVar, this.rVar[k]! + this.params.residualDrift * (this.steps - t));
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
      this.moments(k, mv);
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
    this.scan(top, this.rng.nextUint32());
    let picked: Int32Array;
    if (!thompson) picked = top.sorted();
    else {
      const candidates = listSize > 0 ? top.indices() : null;
      const count = candidates ? candidates.length : size;
      const best = new TopK(take);
      const goal = logit(p.target);
      const mv = new Float64Array(2);
      for (let i = 0; i < count; i++) {
        const k = candidates ? candidates[i]! : i;
        this.moments(k, mv);
        const draw = mv[0]! + Math.sqrt(mv[1]!) * this.rng.normal();
        const key = Math.abs(draw - goal);
        if (key <= best.bound) best.offer(key, k);
      }
      picked = best.sorted();
    }
    if (picked.length === n) return picked;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
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
    const phi = new Float64Array(this.dim);
    for (const k of pool) {
      this.moments(k, mv, phi);
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

  /**
   * Offer every task with its key −2·log E[u] + const, u(η) = exp(−(η − logit p*)² / (2w²)) a
   * kernel of usefulness around the target, for η ~ N(m, v): (m − logit p*)² / (w² + v) + log(w² + v).
   * Equal keys are ordered by a salted hash of the index. Tasks never observed depend only on
   * their domain and reference log-odds: they are searched cell by cell through a grid over those,
   * best lower bound first (exact); observed tasks are scored one by one.
   */
  private scan(top: TopK, salt: number): void {
    const size = this.ids.length;
    const p = this.params;
    const goal = logit(p.target);
    const w2 = p.width * p.width;
    const D = this.dense;
    const xd = this.xd;
    if (D > 3 || xd === 1 || p.search === 'scan') {
      const mv = new Float64Array(2);
      const phi = new Float64Array(this.dim);
      for (let k = 0; k < size; k++) {
        this.moments(k, mv, phi);
        const s = w2 + mv[1]!;
        const e = mv[0]! - goal;
        const key = (e * e) / s + Math.log(s);
        if (key <= top.bound) top.offer(key, k, tieRank(k, salt));
      }
      return;
    }
    // Up to three dense slots: two static columns (the reference log-odds) and practice.
    const P = this.dim;
    const mu = this.mu;
    const cov = this.cov;
    const nd = this.domainNames.length;
    const two = xd === 2;
    const prac = p.practiceEffect;
    const jp = xd;
    const m0 = two ? mu[0]! : 0;
    const m1 = two ? mu[1]! : 0;
    const m2 = prac ? mu[jp]! : 0;
    const s00 = two ? cov[0]! : 0;
    const s01 = two ? cov[1]! : 0;
    const s11 = two ? cov[P + 1]! : 0;
    const s02 = two && prac ? cov[jp]! : 0;
    const s12 = two && prac ? cov[P + jp]! : 0;
    const s22 = prac ? cov[jp * P + jp]! : 0;
    // Per-domain constants: offset mean and variance, covariances with the dense weights.
    const cMean = new Float64Array(nd);
    const cVar = new Float64Array(nd);
    const c0 = new Float64Array(nd);
    const c1 = new Float64Array(nd);
    const c2 = new Float64Array(nd);
    for (let d = 0; d < nd; d++) {
      const c = D + d;
      cMean[d] = mu[c]!;
      cVar[d] = cov[c * P + c]!;
      c0[d] = two ? cov[c]! : 0;
      c1[d] = two ? cov[P + c]! : 0;
      c2[d] = prac ? cov[jp * P + c]! : 0;
    }
    const x = this.x;
    const resVar = this.residualVar;
    // Observed tasks first (their residuals and practice differ task by task).
    const drift = p.residualDrift;
    const now = this.steps;
    const list = this.observedList;
    const obF = this.obF;
    const obDom = this.obDom;
    // ln s ≥ ln s0 + 1 − s0/s for any s0 > 0: reject without a logarithm when even that cannot win.
    const sT = w2 + 0.5 * resVar;
    const lnT = Math.log(sT) + 1;
    for (let i = 0; i < this.observedCount; i++) {
      const o = i * OB;
      const d = obDom[i]!;
      const x0 = obF[o]!;
      const x1 = obF[o + 1]!;
      const x2 = prac ? obF[o + 2]! : 0;
      let rv = obF[o + 4]! + drift * (now - obF[o + 5]!);
      if (rv > resVar) rv = resVar;
      const m = m0 * x0 + m1 * x1 + m2 * x2 + cMean[d]! + obF[o + 3]!;
      const v =
        x0 * x0 * s00 +
        x1 * x1 * s11 +
        x2 * x2 * s22 +
        2 * (x0 * x1 * s01 + x0 * x2 * s02 + x1 * x2 * s12) +
        2 * (x0 * c0[d]! + x1 * c1[d]! + x2 * c2[d]!) +
        cVar[d]! +
        rv;
      const s = w2 + v;
      const e = m - goal;
      const bound = top.bound;
      if (e * e - sT > (bound - lnT) * s) continue;
      const key = (e * e) / s + Math.log(s);
      const k = list[i]!;
      if (key <= bound) top.offer(key, k, tieRank(k, salt));
    }
    // Never-observed tasks: m = m0·x0 + m1·x1 + c_d, v = q_d(x0, x1) + resVar with q_d convex.
    const cells = this.cellIndex();
    const model: KeyModel = {
      m0,
      m1,
      goal,
      w2,
      resVar,
      cMean,
      cx: c0,
      cy: c1,
      c0: cVar,
      sxx: s00,
      sxy: s01,
      syy: s11,
    };
    const lb = cellBounds(cells, model);
    const queue = new CellQueue(cells, lb);
    const observed = this.observed;
    const want = top.capacity;
    const lnW2 = Math.log(w2 + resVar);
    const q: Quadratic = { sxx: 0.5, sxy: 0.5, syy: 0.5, cx: 0.5, cy: 0.5, c0: 0.5 };
    // Cells in a row the tighter bound failed to skip: past a few, it is not worth its cost.
    let misses = 0;
    for (let c = queue.pop(); c >= 0; c = queue.pop()) {
      if (top.size >= want && lb[c]! > top.bound) break;
      const d = cells.group[c]!;
      // The cheap bound takes the least variance as the residual's alone; the shared part's least
      // value over the cell tightens it (it skips cells while the posterior is wide: early steps).
      if (top.size >= want && two && misses < 16) {
        if (cellBound(cells, c, model, q) > top.bound) {
          misses = 0;
          continue;
        }
        misses++;
      }
      const cm = cMean[d]!;
      const cv = cVar[d]! + resVar;
      const cc0 = c0[d]!;
      const cc1 = c1[d]!;
      for (let j = cells.start[c]!; j < cells.start[c + 1]!; j++) {
        const k = cells.items[j]!;
        if (observed[k]) continue;
        const x0 = two ? x[2 * k]! : 0;
        const x1 = two ? x[2 * k + 1]! : 0;
        const m = m0 * x0 + m1 * x1 + cm;
        const v = x0 * x0 * s00 + 2 * x0 * x1 * s01 + x1 * x1 * s11 + 2 * (x0 * cc0 + x1 * cc1) + cv;
        const s = w2 + v;
        const e = m - goal;
        const bound = top.bound;
        // ln s ≥ ln s0 + 1 − s0/s (s0 = w² + residual variance): reject without a logarithm.
        if (e * e - (w2 + resVar) > (bound - lnW2 - 1) * s) continue;
        const key = (e * e) / s + Math.log(s);
        if (key <= bound) top.offer(key, k, tieRank(k, salt));
      }
    }
  }

  /** The grid over never-observed tasks (built lazily; observed tasks are skipped by flag). */
  private cellIndex(): CellIndex {
    if (this.cells && 2 * (this.observedCount - this.cellsBuiltAt) > this.cells.items.length)
      this.cells = null;
    if (!this.cells) {
      this.cellsBuiltAt = this.observedCount;
      const n = this.ids.length;
      const two = this.xd === 2;
      const u = new Float64Array(n);
      const v = new Float64Array(n);
      if (two)
        for (let k = 0; k < n; k++) {
          u[k] = this.x[2 * k]!;
          v[k] = this.x[2 * k + 1]!;
        }
      this.cells = new CellIndex({
        n,
        u,
        v,
        groups: this.domain,
        include: (k) => !this.observed[k],
        grid: this.params.grid > 0 ? this.params.grid : autoGrid(n, this.domainNames.length),
      });
    }
    return this.cells;
  }

  protected override observe(batch: ObservedBatch, _report: SelectorFeedbackReport): void {
    const p = this.params;
    const P = this.dim;
    const xd = this.xd;
    // The learner moved since the last step: widen the shared posterior.
    for (let j = 0; j < P; j++) {
      const q = j < xd ? p.weightDrift : j < this.dense ? p.practiceDrift : p.offsetDrift;
      this.cov[j * P + j]! += q;
    }
    const phi = new Float64Array(P);
    const sphi = new Float64Array(P);
    const mv = new Float64Array(2);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const successes = batch.sum[i]!;
      const trials = batch.count[i]!;
      const firstTime = this.seen[k]! < 0;
      this.moments(k, mv, phi);
      const m0 = mv[0]!;
      const s0 = mv[1]!;
      const rv = this.residualVariance(k);
      const rm = this.rMean[k]!;
      // Laplace step: the posterior mode of η under N(m0, s0) × Binomial(successes | trials, σ(η)).
      let eta = m0;
      for (let it = 0; it < 20; it++) {
        const q = sigmoid(eta);
        const grad = -(eta - m0) / s0 + successes - trials * q;
        const hess = 1 / s0 + trials * q * (1 - q);
        let step = grad / hess;
        if (step > 2) step = 2;
        else if (step < -2) step = -2;
        eta += step;
        if (Math.abs(step) < 1e-10) break;
      }
      const q = sigmoid(eta);
      const info = Math.max(trials * q * (1 - q), 1e-12);
      // The Gaussian observation z ~ N(η, 1/info) that gives the same posterior mode and curvature.
      const R = 1 / info;
      const z = R * (eta * (1 / s0 + info) - m0 / s0);
      const innov = z - m0;
      const S = s0 + R;
      // Joint update of the shared part and this task's residual; their cross-covariance is dropped.
      for (let a = 0; a < P; a++) {
        let s = 0;
        for (let b = 0; b < P; b++) s += this.cov[a * P + b]! * phi[b]!;
        sphi[a] = s;
      }
      for (let a = 0; a < P; a++) {
        this.mu[a]! += (sphi[a]! / S) * innov;
        for (let b = 0; b < P; b++) this.cov[a * P + b]! -= (sphi[a]! * sphi[b]!) / S;
      }
      const r1 = rm + (rv / S) * innov;
      const v1 = rv - (rv * rv) / S;
      this.rMean[k] = r1;
      this.rVar[k] = v1;
      this.seen[k] = this.steps;
      if (firstTime) this.markObserved(k);
      this.syncSlot(k);
      if (firstTime && p.learnResidualSd) {
        // Online EM for the residual prior: its variance tracks the posterior second moment.
        const lr = p.learningRate;
        this.residualVar = Math.min(16, Math.max(0.01, (1 - lr) * this.residualVar + lr * (r1 * r1 + v1)));
      }
    }
    // The learner trains on the groups with mixed rewards: those tasks gain one unit of practice.
    if (p.practiceEffect)
      for (let i = 0; i < batch.size; i++)
        if (batch.mixed[i]) {
          this.practiced[batch.idx[i]!]! += 1;
          this.syncSlot(batch.idx[i]!);
        }
    this.steps++;
  }

  private markObserved(k: number): void {
    this.observed[k] = 1;
    if (this.observedCount === this.observedList.length) {
      const cap = this.observedList.length * 2;
      const grow = <T extends Float64Array | Int32Array>(a: T): T => growTyped(a, cap);
      this.observedList = grow(this.observedList);
      this.obDom = grow(this.obDom);
      const obF = new Float64Array(cap * OB);
      obF.set(this.obF);
      this.obF = obF;
    }
    const j = this.observedCount++;
    this.observedList[j] = k;
    this.slotOf[k] = j;
    const two = this.xd === 2;
    this.obF[j * OB] = two ? this.x[2 * k]! : 0;
    this.obF[j * OB + 1] = two ? this.x[2 * k + 1]! : 0;
    this.obDom[j] = this.domain[k]!;
  }

  /** Copy an observed task's changing columns into its slot. */
  private syncSlot(k: number): void {
    const j = this.slotOf[k]!;
    if (j < 0) return;
    const o = j * OB;
    this.obF[o + 2] = this.practiced[k]!;
    this.obF[o + 3] = this.rMean[k]!;
    this.obF[o + 4] = this.rVar[k]!;
    this.obF[o + 5] = this.seen[k]!;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      mu: encodeArray(this.mu),
      cov: encodeArray(this.cov),
      domainNames: [...this.domainNames],
      rMean: encodeArray(this.rMean),
      rVar: encodeArray(this.rVar),
      seen: encodeArray(this.seen),
      practiced: encodeArray(this.practiced),
      residualVar: this.residualVar,
      steps: this.steps,
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    const names = data['domainNames'];
    if (!Array.isArray(names) || !names.every((v) => typeof v === 'string'))
      throw new DataError({ message: 'shared_ability.load: state.data.domainNames must be a list of names' });
    if (names.length !== this.domainNames.length || names.some((v, i) => v !== this.domainNames[i]))
      throw new DataError({ message: 'shared_ability.load: the state was taken with different domains' });
    const P = this.dim;
    this.mu = decodeArray(data['mu'], 'float64', 'shared_ability mu', P);
    this.cov = decodeArray(data['cov'], 'float64', 'shared_ability cov', P * P);
    this.rMean = decodeArray(data['rMean'], 'float64', 'shared_ability rMean', n);
    this.rVar = decodeArray(data['rVar'], 'float64', 'shared_ability rVar', n);
    this.seen = decodeArray(data['seen'], 'int32', 'shared_ability seen', n);
    this.practiced = decodeArray(data['practiced'], 'float64', 'shared_ability practiced', n);
    this.observed = new Uint8Array(n);
    this.slotOf = new Int32Array(n).fill(-1);
    this.observedCount = 0;
    this.cells = null;
    for (let k = 0; k < n; k++)
      if (this.seen[k]! >= 0) {
        this.markObserved(k);
        this.syncSlot(k);
      }
    const { residualVar, steps } = data;
    if (typeof residualVar !== 'number' || typeof steps !== 'number')
      throw new DataError({ message: 'shared_ability.load: state.data needs residualVar and steps' });
    this.residualVar = residualVar;
    this.steps = steps;
  }
}

function mean(col: Float64Array): number {
  let s = 0;
  let c = 0;
  for (const v of col)
    if (Number.isFinite(v)) {
      s += v;
      c++;
    }
  return c > 0 ? s / c : 0;
}

function sd(col: Float64Array, m: number): number {
  let s = 0;
  let c = 0;
  for (const v of col)
    if (Number.isFinite(v)) {
      s += (v - m) * (v - m);
      c++;
    }
  return c > 1 ? Math.sqrt(s / (c - 1)) : 0;
}
