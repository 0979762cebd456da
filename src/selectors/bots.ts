import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { DomainCapability } from './bots-domain-capability.ts';
import { DomainTrack } from './bots-domain-track.ts';
import { TaskOffsets } from './bots-task-offset.ts';
import { autoGrid, CellIndex, CellQueue } from './cell-index.ts';
import { tieRank } from './hash-tie.ts';
import { decodeArray, decodeNumber, encodeArray, encodeNumber } from './state-codec.ts';
import { TopK } from './top-k.ts';
import type { SelectContext, SelectorFeedbackReport, SelectorTaskView, TaskFeedback } from './types.ts';

export interface BotsParams {
  /** Evidence per observed group: s = m·r̄, f = m·(1 − r̄). Set it to the rollouts per task. */
  m: number;
  /** Forgetting factor λ: every step pulls the posterior toward the prior by this share. */
  lambda: number;
  /** Weight ρ of implicit (reference-interpolated) evidence against explicit evidence. */
  rho: number;
  /** Target pass rate p*. */
  target: number;
  /** 0: greedy top-k of the scores; > 0: sample without replacement ∝ exp(score / τ). */
  tau: number;
  /** Score a Thompson draw from each posterior, or the posterior mean. */
  sample: 'thompson' | 'mean';
  /** Halve ρ (by `adaptiveRhoFactor`) whenever the implicit prediction's mean absolute error on a step's tasks reaches `adaptiveRhoThreshold`. */
  adaptiveRho: boolean;
  adaptiveRhoThreshold: number;
  adaptiveRhoFactor: number;
  adaptiveRhoMin: number;
  /** Capability smoothing: c ← d·c + (1 − d)·c_new (the first estimate is taken as is). */
  capabilityDiscount: number;
  /** Skip the capability update when |mean f1 − mean f0| over the step's tasks is below this. */
  capabilityGuard: number;
  /** Each step's capability estimate is clamped into this range. */
  capabilityMin: number;
  capabilityMax: number;
  /** Feature columns with the weak (f0) and strong (f1) reference models' pass rates. */
  weakColumn: string;
  strongColumn: string;
  /** Prior Beta(α0, β0): the initial posterior and the target of the forgetting pull. */
  priorAlpha: number;
  priorBeta: number;
  /**
   * Above this many tasks, Thompson / softmax sampling runs on the tasks whose posterior puts the
   * most density at p* (normal approximation) — see docs/selectors.md. 0 = always all tasks.
   */
  shortlist: number;
  /** Cells per axis of the (f0, f1) grid used to find shortlist candidates among unobserved tasks (0: ≈ √(N/64)). */
  grid: number;
  /**
   * 'step': forgetting and implicit evidence apply once per explorer step (`ctx.step` of
   * feedback); later feedback calls of the same step — dynamic-sampling refill rounds, which saw
   * the same policy — add only their explicit evidence. 'feedback' (the default, as before): every
   * call is a step (also what 'step' does when feedback carries no step).
   */
  updatePer: 'step' | 'feedback';
  /**
   * 'all': one capability for the learner (the paper). 'domain': one per task domain (global c
   * until a domain has its own estimate), so implicit evidence follows skills learnt at different
   * times; every task is then stored one by one (O(N) per step).
   */
  capabilityBy: 'all' | 'domain';
  /**
   * Share g of the gap to 1 that one update closes on a task whose group had mixed rewards (GRPO
   * trains on exactly those): its evidence counts as r̄ + g·(1 − r̄), since the pass rate it
   * measured is the one before the update. 0 = the evidence as observed (the paper).
   */
  trainedGain: number;
  /**
   * Rate η of a per-task offset from the reference track (0 = off, the paper): each observed task
   * keeps a logit offset u ← u + η·(logit r̃ − logit p̂) toward what its own groups showed, and its
   * implicit evidence aims at σ(logit p̃ + u) — so tasks already solved (or out of reach) inside
   * a half-learnt level are not pulled back to p*. Needs a track (reference columns, or
   * domainTrack); tasks with an offset stay stored one by one.
   */
  taskOffset: number;
  /**
   * Implicit evidence for tasks without reference columns (false = none, the paper): each domain
   * keeps a smoothed pass rate of its observed groups (discount `capabilityDiscount`) and such a
   * task's implicit evidence (weight ρ) aims at its domain's rate (src/selectors/bots-domain-track.ts).
   */
  domainTrack: boolean;
}

export const BOTS_DEFAULTS: BotsParams = {
  m: 16,
  lambda: 0.1,
  rho: 0.1,
  target: 0.5,
  tau: 0,
  sample: 'thompson',
  adaptiveRho: false,
  adaptiveRhoThreshold: 0.25,
  adaptiveRhoFactor: 0.5,
  adaptiveRhoMin: 0,
  capabilityDiscount: 0.9,
  capabilityGuard: 0.02,
  capabilityMin: -1,
  capabilityMax: 2,
  weakColumn: 'weak_pass_rate',
  strongColumn: 'strong_pass_rate',
  priorAlpha: 1,
  priorBeta: 1,
  shortlist: 1024,
  grid: 0,
  updatePer: 'feedback',
  capabilityBy: 'all',
  trainedGain: 0,
  taskOffset: 0,
  domainTrack: false,
};

/**
 * Whether p̃ = f0 + c·Δ stays inside [0, 1] for every c in [lo, hi] ⊇ [0, 1] (for c in [0, 1] it
 * always does: p̃ lies between f0 and f1). Same slack as the clip order.
 */
function clipSafe(f: number, d: number, lo: number, hi: number): boolean {
  const slack = (x: number) => x - 1e-9 * (1 + Math.abs(x));
  let up = Number.POSITIVE_INFINITY;
  let down = Number.NEGATIVE_INFINITY;
  if (d > 0) {
    up = slack((1 - f) / d);
    down = -slack(f / d);
  } else if (d < 0) {
    up = slack(f / -d);
    down = -slack((1 - f) / -d);
  }
  return (hi <= 1 || up >= hi) && (lo >= 0 || down <= lo);
}

interface ClipOrder {
  at: Float64Array;
  task: Int32Array;
  next: number;
}

/**
 * BOTS (Bayesian online task selection): a Beta(α, β) posterior over each task's current pass
 * rate, updated after every step with explicit evidence for the tasks rolled out and implicit
 * evidence — an interpolation between two reference models' pass rates at the learner's
 * estimated capability c — for all the others:
 *   α ← (1−λ)α + λα0 + (1−ρ)s + ρ·m·p̃,  β ← (1−λ)β + λβ0 + (1−ρ)f + ρ·m·(1−p̃).
 * Differences from the reference implementation: rewards are clipped into [0, 1] (counted), the
 * capability update is skipped when the reference columns nearly agree (instead of dividing by
 * ~0), missing reference columns mean explicit-only evidence (ρ = 0) with a notice, and the whole
 * posterior is checkpointed.
 *
 * Scale: a task that has never been observed (and whose p̃ never clipped) has, exactly,
 *   α = A + B·f0 + E·(f1 − f0),  β = A' + B·(1 − f0) − E·(f1 − f0)
 * for four scalars updated once per step, so a step costs O(batch + tasks touched), not O(N).
 * Observed tasks (and tasks whose p̃ would clip, which only happens when c leaves [0, 1]) are
 * "explicit": stored and updated one by one with the formula above.
 */
export class BotsSelector extends BaseSelector {
  readonly type: string = 'bots';
  readonly params: BotsParams;
  /** f0 per task, and f1 − f0; NaN where a task lacks either reference. */
  private f0 = new Float64Array(0);
  private delta = new Float64Array(0);
  private hasRefs = false;
  private capability = Number.NaN;
  private rho: number;
  // Scalars of the shared (lazy) posterior of tasks that are not explicit.
  private lazyA: number;
  private lazyA2: number;
  private lazyB = 0;
  private lazyE = 0;
  /**
   * Explicit tasks: a flag per task, and slot arrays in the order tasks became explicit (task, α, β,
   * f0, Δ, last observed step), so the per-step loop over them reads memory sequentially.
   */
  private explicit = new Uint8Array(0);
  private slotOf = new Int32Array(0);
  private explicitCount = 0;
  private exTask = new Int32Array(16);
  private exA = new Float64Array(16);
  private exB = new Float64Array(16);
  private exF0 = new Float64Array(16);
  private exD = new Float64Array(16);
  private exStamp = new Int32Array(16);
  /** Range of capabilities applied so far; every task whose p̃ would clip inside it is explicit. */
  private cSeenMin = 0;
  private cSeenMax = 1;
  /** Lazy tasks in order of the capability beyond which p̃ clips (built when first needed). */
  private byHi: ClipOrder | null = null;
  private byLo: ClipOrder | null = null;
  private cells: CellIndex | null = null;
  private stepNo = 0;
  /** The explorer step of the last update (NaN: none, or feedback without a step). */
  private lastStep = Number.NaN;
  private domainCap: DomainCapability | null = null;
  private offsets: TaskOffsets | null = null;
  private track: DomainTrack | null = null;
  private feedbackStep: number | undefined;

  constructor(seed: number, params: Partial<BotsParams> = {}) {
    super(seed);
    this.params = { ...BOTS_DEFAULTS, ...params };
    this.rho = this.params.rho;
    this.lazyA = this.params.priorAlpha;
    this.lazyA2 = this.params.priorBeta;
  }

  /** The smoothed capability estimate (NaN before the first usable step). */
  get c(): number {
    return this.capability;
  }

  /** The current weight of implicit evidence (0 when running explicit-only). */
  get currentRho(): number {
    return this.hasRefs || this.track ? this.rho : 0;
  }

  /** Number of tasks stored one by one (observed, or clipped, or without references). */
  get explicitTasks(): number {
    return this.explicitCount;
  }

  /** The posterior parameters of every task (materialised copies). */
  posterior(): { alpha: Float64Array; beta: Float64Array } {
    const n = this.ids.length;
    const alpha = new Float64Array(n);
    const beta = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      alpha[k] = this.alphaOf(k);
      beta[k] = this.betaOf(k);
    }
    return { alpha, beta };
  }

  /**
   * The k tasks whose posterior puts the most density at p* (normal approximation), best first:
   * the Thompson shortlist. Ties go by index.
   */
  densityRanking(k: number): string[] {
    this.requireInit('densityRanking');
    const top = new TopK(Math.min(k, this.ids.length));
    this.bestByKey(top.capacity, 'density', null, top);
    return Array.from(top.sorted(), (i) => this.ids[i]!);
  }

  private alphaOf(k: number): number {
    return this.explicit[k]
      ? this.exA[this.slotOf[k]!]!
      : this.lazyA + this.lazyB * this.f0[k]! + this.lazyE * this.delta[k]!;
  }

  private betaOf(k: number): number {
    return this.explicit[k]
      ? this.exB[this.slotOf[k]!]!
      : this.lazyA2 + this.lazyB * (1 - this.f0[k]!) - this.lazyE * this.delta[k]!;
  }

  protected override onInit(view: SelectorTaskView): void {
    const weak = view.features[this.params.weakColumn];
    const strong = view.features[this.params.strongColumn];
    this.hasRefs = weak !== undefined && strong !== undefined;
    if (this.params.capabilityBy === 'domain') this.domainCap = new DomainCapability();
    if (this.params.taskOffset > 0) this.offsets = new TaskOffsets(this.params.taskOffset);
    if (this.params.domainTrack) this.track = new DomainTrack(this.params.capabilityDiscount);
    if (!this.hasRefs && this.params.rho > 0 && !this.track)
      this.notice(
        `bots: reference columns '${this.params.weakColumn}' and '${this.params.strongColumn}' are not both present; running explicit-only (rho = 0)`,
      );
    this.grow(view, 0);
  }

  protected override onAddTasks(view: SelectorTaskView, offset: number): void {
    // New tasks start at the prior Beta(α0, β0): they are explicit (the lazy track has moved on).
    this.grow(view, offset);
  }

  private grow(view: SelectorTaskView, offset: number): void {
    const n = offset + view.ids.length;
    this.domainCap?.grow(view.domains, view.ids.length, offset);
    this.offsets?.grow(n);
    this.track?.grow(view.domains, view.ids.length, offset);
    const growF = (a: Float64Array) => {
      const out = new Float64Array(n);
      out.set(a);
      return out;
    };
    this.f0 = growF(this.f0);
    this.delta = growF(this.delta);
    const flags = new Uint8Array(n);
    flags.set(this.explicit);
    this.explicit = flags;
    const slotOf = new Int32Array(n).fill(-1);
    slotOf.set(this.slotOf);
    this.slotOf = slotOf;
    const weak = view.features[this.params.weakColumn];
    const strong = view.features[this.params.strongColumn];
    for (let i = 0; i < view.ids.length; i++) {
      const k = offset + i;
      const w = weak ? weak[i]! : Number.NaN;
      const s = strong ? strong[i]! : Number.NaN;
      const ok = this.hasRefs && Number.isFinite(w) && Number.isFinite(s);
      this.f0[k] = ok ? w : Number.NaN;
      this.delta[k] = ok ? s - w : Number.NaN;
      // Without references a task's update is not the shared one; tasks added mid-run start at the prior.
      // Capabilities per domain give every task its own p̃ track: no shared lazy posterior.
      if (!ok || offset > 0 || this.domainCap)
        this.makeExplicit(k, this.params.priorAlpha, this.params.priorBeta);
    }
    this.rebuildIndexes();
  }

  private moveSlot(from: number, to: number): void {
    const k = this.exTask[from]!;
    this.exTask[to] = k;
    this.exA[to] = this.exA[from]!;
    this.exB[to] = this.exB[from]!;
    this.exF0[to] = this.exF0[from]!;
    this.exD[to] = this.exD[from]!;
    this.exStamp[to] = this.exStamp[from]!;
    this.slotOf[k] = to;
  }

  private makeExplicit(k: number, a: number, b: number): void {
    let j = this.slotOf[k]!;
    if (j < 0) {
      if (this.explicitCount === this.exTask.length) {
        const cap = this.exTask.length * 2;
        const grow = <T extends Float64Array | Int32Array>(x: T): T => {
          const out = new (x.constructor as new (n: number) => T)(cap);
          out.set(x);
          return out;
        };
        this.exTask = grow(this.exTask);
        this.exA = grow(this.exA);
        this.exB = grow(this.exB);
        this.exF0 = grow(this.exF0);
        this.exD = grow(this.exD);
        this.exStamp = grow(this.exStamp);
      }
      j = this.explicitCount++;
      this.slotOf[k] = j;
      this.explicit[k] = 1;
      this.exTask[j] = k;
      this.exF0[j] = this.f0[k]!;
      this.exD[j] = this.delta[k]!;
      this.exStamp[j] = -1;
    }
    this.exA[j] = a;
    this.exB[j] = b;
  }

  /** The (f0, f1) grid over the tasks with references; clip thresholds are rebuilt on demand. */
  private rebuildIndexes(): void {
    const n = this.ids.length;
    this.byHi = null;
    this.byLo = null;
    const f1 = new Float64Array(n);
    for (let k = 0; k < n; k++) f1[k] = this.f0[k]! + this.delta[k]!;
    this.cells =
      this.params.shortlist > 0 && n > this.params.shortlist
        ? new CellIndex({
            n,
            u: this.f0,
            v: f1,
            groups: null,
            // Every task with references (explicit ones are skipped by flag: they may turn lazy again).
            include: (k) => !Number.isNaN(this.f0[k]!),
            grid: this.params.grid > 0 ? this.params.grid : autoGrid(n, 1),
          })
        : null;
  }

  /**
   * Tasks sorted by the capability above (`byHi`) / below (`byLo`) which their p̃ = f0 + c·Δ
   * leaves [0, 1]. Only needed once c leaves [0, 1], so built on first use. Invariant: once the
   * capabilities applied so far reach beyond [0, 1], every task whose threshold lies inside their
   * range is explicit.
   */
  private buildClipOrder(): void {
    const n = this.ids.length;
    // Slightly conservative thresholds, so a task is always made explicit before p̃ can clip.
    const slack = (x: number) => x - 1e-9 * (1 + Math.abs(x));
    const hi: Array<[number, number]> = [];
    const lo: Array<[number, number]> = [];
    for (let k = 0; k < n; k++) {
      const f = this.f0[k]!;
      const d = this.delta[k]!;
      if (d > 0) {
        hi.push([slack((1 - f) / d), k]);
        lo.push([-slack(f / d), k]);
      } else if (d < 0) {
        hi.push([slack(f / -d), k]);
        lo.push([-slack((1 - f) / -d), k]);
      }
    }
    hi.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    lo.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    this.byHi = { at: Float64Array.from(hi, (e) => e[0]), task: Int32Array.from(hi, (e) => e[1]), next: 0 };
    this.byLo = { at: Float64Array.from(lo, (e) => e[0]), task: Int32Array.from(lo, (e) => e[1]), next: 0 };
  }

  /** Make explicit every lazy task whose p̃ would clip at capability c (before the step applies). */
  private materialiseClipping(c: number): void {
    if (c <= this.cSeenMax && c >= this.cSeenMin) return;
    if (!this.byHi || !this.byLo) this.buildClipOrder();
    if (c > this.cSeenMax) {
      const o = this.byHi!;
      for (; o.next < o.task.length && o.at[o.next]! < c; o.next++) {
        const k = o.task[o.next]!;
        if (!this.explicit[k]) this.makeExplicit(k, this.alphaOf(k), this.betaOf(k));
      }
      this.cSeenMax = c;
    }
    if (c < this.cSeenMin) {
      const o = this.byLo!;
      for (; o.next < o.task.length && o.at[o.next]! > c; o.next++) {
        const k = o.task[o.next]!;
        if (!this.explicit[k]) this.makeExplicit(k, this.alphaOf(k), this.betaOf(k));
      }
      this.cSeenMin = c;
    }
  }

  predict(taskIds: readonly string[]): Float64Array {
    const idx = this.indicesOf(taskIds);
    const out = new Float64Array(idx.length);
    for (let i = 0; i < idx.length; i++) {
      const k = idx[i]!;
      if (k < 0) {
        out[i] = Number.NaN;
        continue;
      }
      const a = this.alphaOf(k);
      out[i] = a / (a + this.betaOf(k));
    }
    return out;
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const take = Math.min(n, size);
    const { target, tau, sample } = this.params;
    const top = new TopK(take);
    if (sample === 'mean' && tau === 0) {
      // Deterministic scores: the exact top-k by |p* − mean| (ties by index).
      this.bestByKey(take, 'mean', null, top);
    } else {
      const K = Math.max(this.params.shortlist, take);
      let candidates: Int32Array | null = null;
      if (this.cells) {
        const short = new TopK(K);
        this.bestByKey(K, sample === 'mean' ? 'mean' : 'density', this.rng.nextUint32(), short);
        candidates = short.indices();
      }
      const count = candidates ? candidates.length : size;
      for (let i = 0; i < count; i++) {
        const k = candidates ? candidates[i]! : i;
        const a = this.alphaOf(k);
        const b = this.betaOf(k);
        const p = sample === 'thompson' ? this.rng.beta(a, b) : a / (a + b);
        let key = Math.abs(target - p);
        if (tau > 0) {
          // Gumbel-top-k: sampling without replacement with probabilities ∝ exp(−|p* − p| / τ).
          let u = 0;
          while (u === 0) u = this.rng.float();
          key = key / tau + Math.log(-Math.log(u));
        }
        if (key <= top.bound) top.offer(key, k);
      }
    }
    const picked = top.sorted();
    if (picked.length === n) return picked;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
  }

  /**
   * The best tasks by `mean`: |p* − mean|, or `density`: −log density at p* under a normal
   * approximation of the Beta, d²/(2v) + ½·ln v. Ties go by index (salt null) or by a salted hash.
   * Explicit tasks are scored one by one; lazy tasks through the (f0, f1) grid, cell by cell in
   * order of a lower bound of the score, which is exact.
   */
  private bestByKey(k: number, kind: 'mean' | 'density', salt: number | null, top: TopK): void {
    const target = this.params.target;
    const score = (a: number, b: number): number => {
      const s = a + b;
      const mean = a / s;
      if (kind === 'mean') return Math.abs(target - mean);
      const v = (mean * (1 - mean)) / (s + 1);
      const d = mean - target;
      return (d * d) / (2 * v) + 0.5 * Math.log(v);
    };
    const offer = (key: number, i: number) => {
      const tie = salt === null ? i : tieRank(i, salt);
      if (key <= top.bound) top.offer(key, i, tie);
    };
    const cells = this.cells;
    if (!cells) {
      for (let i = 0; i < this.ids.length; i++) offer(score(this.alphaOf(i), this.betaOf(i)), i);
      return;
    }
    // ln v ≥ ln v0 + 1 − v0/v, so key ≥ (d² − v0)/(2v) + ½(ln v0 + 1): a cheap rejection test
    // (any v0 > 0 works; the closer to the typical variance, the more it rejects).
    const v0 = 0.25 / (this.lazyA + this.lazyA2 + this.lazyB + 1);
    const half = 0.5 * (Math.log(v0) + 1);
    const kindMean = kind === 'mean';
    const exA = this.exA;
    const exB = this.exB;
    const exTask = this.exTask;
    for (let j = 0; j < this.explicitCount; j++) {
      const a = exA[j]!;
      const b = exB[j]!;
      const i = exTask[j]!;
      const sum = a + b;
      const mean = a / sum;
      const d = mean - target;
      const bound = top.bound;
      let key: number;
      if (kindMean) key = d < 0 ? -d : d;
      else {
        const v = (mean * (1 - mean)) / (sum + 1);
        if (d * d - v0 > 2 * v * (bound - half)) continue;
        key = (d * d) / (2 * v) + 0.5 * Math.log(v);
      }
      if (key <= bound) top.offer(key, i, salt === null ? i : tieRank(i, salt));
    }
    // Lazy tasks share s = A + A' + B; mean = (A + (B − E)·f0 + E·f1) / s is linear in (f0, f1).
    const A = this.lazyA;
    const B = this.lazyB;
    const E = this.lazyE;
    const s = A + this.lazyA2 + B;
    const cf0 = (B - E) / s;
    const cf1 = E / s;
    const c0 = A / s;
    const lb = new Float64Array(cells.cellCount);
    for (let c = 0; c < cells.cellCount; c++) {
      if (cells.isEmpty(c)) continue;
      const m1 = c0 + cf0 * cells.uMin[c]! + cf1 * cells.vMin[c]!;
      const m2 = c0 + cf0 * cells.uMin[c]! + cf1 * cells.vMax[c]!;
      const m3 = c0 + cf0 * cells.uMax[c]! + cf1 * cells.vMin[c]!;
      const m4 = c0 + cf0 * cells.uMax[c]! + cf1 * cells.vMax[c]!;
      // Widen by a hair so rounding in the per-task formula can never fall outside the bound.
      const eps = 1e-12;
      const lo = Math.min(m1, m2, m3, m4) - eps;
      const hi = Math.max(m1, m2, m3, m4) + eps;
      const dmin = target < lo ? lo - target : target > hi ? target - hi : 0;
      if (kind === 'mean') lb[c] = dmin - eps;
      else {
        // min over mean in [lo, hi] of d²/(2v) + ½ ln v with v = mean(1 − mean)/(s + 1) ∈ [vlo, vhi].
        const q = (x: number) => (Math.min(1, Math.max(0, x)) * (1 - Math.min(1, Math.max(0, x)))) / (s + 1);
        const vlo = Math.min(q(lo), q(hi));
        const vhi = lo <= 0.5 && hi >= 0.5 ? 0.25 / (s + 1) : Math.max(q(lo), q(hi));
        const vstar = Math.min(vhi, Math.max(vlo, dmin * dmin));
        lb[c] =
          vstar <= 0 ? Number.NEGATIVE_INFINITY : (dmin * dmin) / (2 * vstar) + 0.5 * Math.log(vstar) - 1e-9;
      }
    }
    const queue = new CellQueue(cells, lb);
    const f0 = this.f0;
    const delta = this.delta;
    const A2 = this.lazyA2;
    const sp1 = s + 1;
    for (let c = queue.pop(); c >= 0; c = queue.pop()) {
      if (top.size >= k && lb[c]! > top.bound) break;
      for (let j = cells.start[c]!; j < cells.start[c + 1]!; j++) {
        const i = cells.items[j]!;
        if (this.explicit[i]) continue;
        const a = A + B * f0[i]! + E * delta[i]!;
        const b = A2 + B * (1 - f0[i]!) - E * delta[i]!;
        const mean = a / (a + b);
        const d = mean - target;
        const bound = top.bound;
        let key: number;
        if (kindMean) key = d < 0 ? -d : d;
        else {
          const v = (mean * (1 - mean)) / sp1;
          if (d * d - v0 > 2 * v * (bound - half)) continue;
          key = (d * d) / (2 * v) + 0.5 * Math.log(v);
        }
        if (key <= bound) top.offer(key, i, salt === null ? i : tieRank(i, salt));
      }
    }
  }

  override feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    this.feedbackStep = ctx?.step;
    return super.feedback(results, ctx);
  }

  protected override observe(batch: ObservedBatch, report: SelectorFeedbackReport): void {
    if (batch.size === 0) return;
    const step = this.params.updatePer === 'step' ? this.feedbackStep : undefined;
    if (step !== undefined && step === this.lastStep) {
      this.observeRound(batch, report);
      return;
    }
    this.lastStep = step ?? Number.NaN;
    const { m, lambda, priorAlpha, priorBeta } = this.params;
    if (this.hasRefs) this.updateCapability(batch, report);
    this.track?.update(batch);
    const rho = this.hasRefs || this.track ? this.rho : 0;
    const c = this.capability;
    const implicit = rho > 0 && !Number.isNaN(c);
    if (implicit) this.materialiseClipping(c);
    const keep = 1 - lambda;
    const pullA = lambda * priorAlpha;
    const pullB = lambda * priorBeta;
    // Observed tasks, from their old posterior. For them p̃ = r̄, so implicit and explicit terms
    // together add m·r̄ successes and m·(1 − r̄) failures.
    this.observeOffsets(batch);
    const newA = new Float64Array(batch.size);
    const newB = new Float64Array(batch.size);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const r = this.evidenceRate(batch, i);
      newA[i] = keep * this.alphaOf(k) + pullA + (1 - rho) * m * r + rho * m * r;
      newB[i] = keep * this.betaOf(k) + pullB + (1 - rho) * m * (1 - r) + rho * m * (1 - r);
      const j = this.slotOf[k]!;
      if (j >= 0) this.exStamp[j] = this.stepNo;
    }
    // Explicit tasks not observed this step: implicit evidence one by one.
    const rm = rho * m;
    const nextA = keep * this.lazyA + pullA;
    const nextA2 = keep * this.lazyA2 + pullB;
    const nextB = keep * this.lazyB + (implicit ? rm : 0);
    const nextE = keep * this.lazyE + (implicit ? rm * c : 0);
    const exA = this.exA;
    const exB = this.exB;
    const exF0 = this.exF0;
    const exD = this.exD;
    const exStamp = this.exStamp;
    const now = this.stepNo;
    const lo = this.cSeenMin;
    const hi = this.cSeenMax;
    const dc = this.domainCap;
    // Steps after its last observation before a task's own evidence can have decayed to rounding.
    const settle = lambda > 0 ? Math.ceil(Math.log(1e-15) / Math.log(1 - lambda)) : Number.POSITIVE_INFINITY;
    let back = 0;
    for (let j = 0; j < this.explicitCount; j++) {
      if (exStamp[j] !== now) {
        let p = implicit ? exF0[j]! + this.capabilityOf(this.exTask[j]!) * exD[j]! : Number.NaN;
        // A task without references follows its domain's track instead (domainTrack).
        if (this.track && rho > 0 && Number.isNaN(exF0[j]!)) p = this.track.of(this.exTask[j]!);
        if (this.offsets && !Number.isNaN(p))
          p = this.offsets.shift(this.exTask[j]!, Math.min(1, Math.max(0, p)));
        if (Number.isNaN(p)) {
          // No implicit evidence (none yet, or no reference for this task): only the pull to the prior.
          exA[j] = keep * exA[j]! + pullA;
          exB[j] = keep * exB[j]! + pullB;
        } else {
          p = Math.min(1, Math.max(0, p));
          exA[j] = keep * exA[j]! + pullA + rm * p;
          exB[j] = keep * exB[j]! + pullB + rm * (1 - p);
        }
        // Forgetting pulls every task back onto the shared track: once a task's posterior agrees
        // with it to rounding, and its p̃ has never had to clip, it is lazy again (so the explicit
        // set stays ~ batch × (steps for (1 − λ)^t to reach 1e-15), whatever N is).
        const f = exF0[j]!;
        const d = exD[j]!;
        const offset = this.offsets ? this.offsets.of(this.exTask[j]!) : 0;
        if (
          !dc &&
          offset === 0 &&
          now - exStamp[j]! >= settle &&
          !Number.isNaN(f) &&
          clipSafe(f, d, lo, hi)
        ) {
          const la = nextA + nextB * f + nextE * d;
          const lb = nextA2 + nextB * (1 - f) - nextE * d;
          if (Math.abs(exA[j]! - la) <= 1e-13 * la && Math.abs(exB[j]! - lb) <= 1e-13 * lb) {
            const k = this.exTask[j]!;
            this.explicit[k] = 0;
            this.slotOf[k] = -1;
            continue;
          }
        }
      }
      if (back !== j) this.moveSlot(j, back);
      back++;
    }
    this.explicitCount = back;
    for (let i = 0; i < batch.size; i++) {
      this.makeExplicit(batch.idx[i]!, newA[i]!, newB[i]!);
      this.exStamp[this.slotOf[batch.idx[i]!]!] = now;
    }
    // Lazy tasks: the same update, on the four shared scalars.
    this.lazyA = nextA;
    this.lazyA2 = nextA2;
    this.lazyB = nextB;
    this.lazyE = nextE;
    this.stepNo++;
  }

  /**
   * A later round of a step already updated: the policy has not changed since, so no forgetting
   * and no second helping of implicit evidence — only the new groups' explicit evidence (m·r̄
   * successes, m·(1 − r̄) failures), and the capability estimate sees them.
   */
  private observeRound(batch: ObservedBatch, report: SelectorFeedbackReport): void {
    const m = this.params.m;
    if (this.hasRefs) this.updateCapability(batch, report);
    this.track?.update(batch);
    this.observeOffsets(batch);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const r = this.evidenceRate(batch, i);
      this.makeExplicit(k, this.alphaOf(k) + m * r, this.betaOf(k) + m * (1 - r));
      this.exStamp[this.slotOf[k]!] = this.stepNo - 1;
    }
  }

  /** Task k's capability: its domain's estimate (the global one until its domain has one), or the global one. */
  private capabilityOf(k: number): number {
    return this.domainCap ? this.domainCap.of(k, this.capability) : this.capability;
  }

  /**
   * Task k's track, the pass rate implicit evidence aims at before its offset: f0 + c·Δ clamped
   * into [0, 1], or its domain's rate when it has no references (domainTrack); NaN when neither.
   */
  private trackOf(k: number): number {
    const f = this.f0[k]!;
    if (!Number.isNaN(f)) {
      const c = this.capabilityOf(k);
      return Number.isNaN(c) ? Number.NaN : Math.min(1, Math.max(0, f + c * this.delta[k]!));
    }
    return this.track ? this.track.of(k) : Number.NaN;
  }

  /** Each observed task's offset moves toward its group, against its track after this update. */
  private observeOffsets(batch: ObservedBatch): void {
    const offsets = this.offsets;
    if (!offsets) return;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      offsets.observe(k, this.evidenceRate(batch, i), batch.count[i]!, this.trackOf(k));
    }
  }

  /** The pass rate a group's evidence stands for: after the update that trains on a mixed group. */
  private evidenceRate(batch: ObservedBatch, i: number): number {
    const r = batch.mean[i]!;
    return batch.mixed[i] ? r + this.params.trainedGain * (1 - r) : r;
  }

  private updateCapability(batch: ObservedBatch, report: SelectorFeedbackReport): void {
    const p = this.params;
    let sr = 0;
    let s0 = 0;
    let s1 = 0;
    let cnt = 0;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      if (Number.isNaN(this.f0[k]!)) continue;
      sr += batch.mean[i]!;
      s0 += this.f0[k]!;
      s1 += this.f0[k]! + this.delta[k]!;
      cnt++;
    }
    if (cnt === 0) return;
    const den = (s1 - s0) / cnt;
    if (Math.abs(den) < p.capabilityGuard) {
      report.warnings.push(
        `bots: capability not updated — the reference columns nearly agree on this step's tasks (mean f1 − mean f0 = ${den.toFixed(4)})`,
      );
    } else {
      let cNew = (sr / cnt - s0 / cnt) / den;
      if (cNew < p.capabilityMin) cNew = p.capabilityMin;
      else if (cNew > p.capabilityMax) cNew = p.capabilityMax;
      this.capability = Number.isNaN(this.capability)
        ? cNew
        : p.capabilityDiscount * this.capability + (1 - p.capabilityDiscount) * cNew;
    }
    this.domainCap?.update(batch, this.f0, this.delta, p);
    if (p.adaptiveRho && this.rho > p.adaptiveRhoMin && !Number.isNaN(this.capability)) {
      let err = 0;
      for (let i = 0; i < batch.size; i++) {
        const k = batch.idx[i]!;
        if (Number.isNaN(this.f0[k]!)) continue;
        const ck = this.capabilityOf(k);
        const pt = Math.min(1, Math.max(0, this.f0[k]! + ck * this.delta[k]!));
        err += Math.abs(pt - batch.mean[i]!);
      }
      if (err / cnt >= p.adaptiveRhoThreshold) {
        this.rho = Math.max(p.adaptiveRhoMin, this.rho * p.adaptiveRhoFactor);
        report.warnings.push(
          `bots: implicit predictions missed by ${(err / cnt).toFixed(3)} on average; rho lowered to ${this.rho}`,
        );
      }
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    const { alpha, beta } = this.posterior();
    return {
      alpha: encodeArray(alpha),
      beta: encodeArray(beta),
      capability: encodeNumber(this.capability),
      rho: this.rho,
      lazy: [this.lazyA, this.lazyA2, this.lazyB, this.lazyE],
      explicit: encodeArray(this.exTask.slice(0, this.explicitCount)),
      observedAt: encodeArray(this.exStamp.slice(0, this.explicitCount)),
      clipRange: [this.cSeenMin, this.cSeenMax],
      steps: this.stepNo,
      lastStep: encodeNumber(this.lastStep),
      ...(this.domainCap ? { domainCapability: this.domainCap.save() } : {}),
      ...(this.offsets ? { taskOffsets: this.offsets.save() } : {}),
      ...(this.track ? { domainTrack: this.track.save() } : {}),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    const alpha = decodeArray(data['alpha'], 'float64', 'bots alpha', n);
    const beta = decodeArray(data['beta'], 'float64', 'bots beta', n);
    const { rho, lazy, clipRange, steps } = data;
    const nums = (v: unknown, len: number) =>
      Array.isArray(v) && v.length === len && v.every((x) => typeof x === 'number');
    if (typeof rho !== 'number' || typeof steps !== 'number' || !nums(lazy, 4) || !nums(clipRange, 2))
      throw new DataError({
        message: 'bots.load: state.data needs rho, steps, lazy (4 numbers) and clipRange (2 numbers)',
      });
    const list = decodeArray(data['explicit'], 'int32', 'bots explicit');
    this.capability = decodeNumber(data['capability'], 'bots capability');
    this.rho = rho;
    this.stepNo = steps;
    // States written before `updatePer` existed carry no step: the next feedback starts a step.
    this.lastStep =
      data['lastStep'] === undefined ? Number.NaN : decodeNumber(data['lastStep'], 'bots lastStep');
    [this.lazyA, this.lazyA2, this.lazyB, this.lazyE] = lazy as [number, number, number, number];
    this.explicit = new Uint8Array(n);
    this.slotOf = new Int32Array(n).fill(-1);
    this.explicitCount = 0;
    const observedAt = decodeArray(data['observedAt'], 'int32', 'bots observedAt', list.length);
    list.forEach((k, j) => {
      if (k < 0 || k >= n) throw new DataError({ message: `bots.load: explicit task ${k} out of range` });
      this.makeExplicit(k, alpha[k]!, beta[k]!);
      this.exStamp[j] = observedAt[j]!;
    });
    if (this.domainCap) this.domainCap.load(data['domainCapability']);
    if (this.offsets) this.offsets.load(data['taskOffsets'], n);
    if (this.track) this.track.load(data['domainTrack']);
    this.rebuildIndexes();
    // Every lazy task whose p̃ clips inside this range was made explicit before the checkpoint.
    [this.cSeenMin, this.cSeenMax] = clipRange as [number, number];
  }
}
