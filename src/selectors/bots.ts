import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { updateCapability } from './bots-capability.ts';
import { ClipSide, stepTrack, type TrackScalars, type TrackStep } from './bots-clip-side.ts';
import { DomainCapability } from './bots-domain-capability.ts';
import { DomainTrack } from './bots-domain-track.ts';
import { ExplicitSlots } from './bots-explicit.ts';
import { BOTS_DEFAULTS, type BotsParams } from './bots-params.ts';
import {
  type BotsPosteriorView,
  bestByKey,
  EXPLICIT,
  GROUPED_ABOVE,
  GROUPED_BELOW,
  SHARED,
} from './bots-search.ts';
import { TaskOffsets } from './bots-task-offset.ts';
import { type ThompsonPaths, thompsonTopK } from './bots-thompson.ts';
import { autoGrid, CellIndex } from './cell-index.ts';
import { checkRates } from './reference-rates.ts';
import { decodeArray, decodeNumber, encodeArray, encodeNumber } from './state-codec.ts';
import { TopK } from './top-k.ts';
import type { SelectContext, SelectorFeedbackReport, SelectorTaskView, TaskFeedback } from './types.ts';

export { BOTS_DEFAULTS, type BotsParams } from './bots-params.ts';

/**
 * With `shortlist: 0`, above this many tasks (or with `grid` set) Thompson steps go through the grid;
 * at or below it a draw for every task costs ≤ ~0.6 ms, and keeps the selection benchmark's
 * 4,000-task scenario on the same random sequence as before.
 */
export const EXACT_GRID_MIN = 4096;

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
 * Observed tasks are "explicit": stored and updated one by one with the formula above. Once c
 * leaves [0, 1], tasks whose p̃ clamps follow clipped tracks of the same form, one per group of
 * tasks with the same clamping history (src/selectors/bots-clip-side.ts).
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
  /** Scalars of the shared (lazy) posterior of tasks never observed and never clamped. */
  private shared: TrackScalars;
  /**
   * Where each task's posterior lives (SHARED, EXPLICIT, GROUPED_BELOW, GROUPED_ABOVE), and slot
   * arrays of the explicit tasks in the order they became explicit (task, α, β, f0, Δ, last observed
   * step), so the per-step loop over them reads memory sequentially.
   */
  private where = new Uint8Array(0);
  private ex = new ExplicitSlots(0);
  /** Range of capabilities applied so far (kept in the checkpoint). */
  private cSeenMin = 0;
  private cSeenMax = 1;
  /**
   * The clipped tracks: four sides (below 0 → 0, below 0 → 1, above 1 → 1, above 1 → 0), built
   * when c first leaves [0, 1], and each task's position on its side below and above (−1: none).
   */
  private sides: ClipSide[] | null = null;
  private posBelow = new Int32Array(0);
  private posAbove = new Int32Array(0);
  private cells: CellIndex | null = null;
  private stepNo = 0;
  /** The explorer step of the last update (NaN: none, or feedback without a step). */
  private lastStep = Number.NaN;
  private domainCap: DomainCapability | null = null;
  private offsets: TaskOffsets | null = null;
  private track: DomainTrack | null = null;
  private feedbackStep: number | undefined;
  /** How the last exact Thompson step reached its tasks (tests and benchmarks read it). */
  lastPaths: ThompsonPaths | null = null;

  constructor(seed: number, params: Partial<BotsParams> = {}) {
    super(seed);
    this.params = { ...BOTS_DEFAULTS, ...params };
    this.rho = this.params.rho;
    this.shared = { a: this.params.priorAlpha, a2: this.params.priorBeta, b: 0, e: 0 };
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
    return this.ex.count;
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
    bestByKey(this.searchView(), top.capacity, 'density', null, top);
    return Array.from(top.sorted(), (i) => this.ids[i]!);
  }

  /** The track a task that is not explicit follows: the shared one, or its clipped group's. */
  private trackScalars(k: number): TrackScalars {
    const st = this.where[k]!;
    if (st === SHARED) return this.shared;
    const sides = this.sides!;
    const up = this.delta[k]! > 0;
    return st === GROUPED_BELOW
      ? sides[up ? 0 : 1]!.groupAt(this.posBelow[k]!)
      : sides[up ? 2 : 3]!.groupAt(this.posAbove[k]!);
  }

  private alphaOf(k: number): number {
    if (this.where[k] === EXPLICIT) return this.ex.a[this.ex.slotOf[k]!]!;
    const t = this.trackScalars(k);
    return t.a + t.b * this.f0[k]! + t.e * this.delta[k]!;
  }

  private betaOf(k: number): number {
    if (this.where[k] === EXPLICIT) return this.ex.b[this.ex.slotOf[k]!]!;
    const t = this.trackScalars(k);
    return t.a2 + t.b * (1 - this.f0[k]!) - t.e * this.delta[k]!;
  }

  private searchView(): BotsPosteriorView {
    return {
      target: this.params.target,
      n: this.ids.length,
      f0: this.f0,
      delta: this.delta,
      state: this.where,
      exTask: this.ex.task,
      exA: this.ex.a,
      exB: this.ex.b,
      explicitCount: this.ex.count,
      shared: this.shared,
      sides: this.sides,
      cells: this.cells,
      alphaOf: (k) => this.alphaOf(k),
      betaOf: (k) => this.betaOf(k),
    };
  }

  protected override checkView(view: SelectorTaskView): void {
    for (const column of [this.params.weakColumn, this.params.strongColumn]) checkRates(view, column, 'bots');
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
    flags.set(this.where);
    this.where = flags;
    this.ex.resize(n);
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

  private makeExplicit(k: number, a: number, b: number): void {
    let j = this.ex.slotOf[k]!;
    if (j < 0) {
      j = this.ex.add(k, this.f0[k]!, this.delta[k]!);
      this.where[k] = EXPLICIT;
    }
    this.ex.a[j] = a;
    this.ex.b[j] = b;
  }

  /** The (f0, f1) grid over the tasks with references, and the clipped tracks' orders once they exist. */
  private rebuildIndexes(): void {
    const n = this.ids.length;
    const f1 = new Float64Array(n);
    for (let k = 0; k < n; k++) f1[k] = this.f0[k]! + this.delta[k]!;
    const { shortlist, grid } = this.params;
    // The grid serves the shortlist search, and the exact Thompson step (shortlist 0) at scale.
    const gridded = shortlist > 0 ? n > shortlist : n > EXACT_GRID_MIN || grid > 0;
    this.cells = gridded
      ? new CellIndex({
          n,
          u: this.f0,
          v: f1,
          groups: null,
          // Every task with references (the others are skipped by state: they may rejoin the track).
          include: (k) => !Number.isNaN(this.f0[k]!),
          grid: this.params.grid > 0 ? this.params.grid : autoGrid(n, 1),
        })
      : null;
    // Tasks added since keep their place by threshold: the cuts are capabilities, placed again.
    if (this.sides) {
      const saved = this.sides.map((side) => side.save());
      this.buildSides();
      this.sides!.forEach((side, i) => {
        side.load(saved[i], this.delta, 'clipGroups');
      });
    }
  }

  private buildSides(): void {
    const n = this.ids.length;
    this.posBelow = new Int32Array(n).fill(-1);
    this.posAbove = new Int32Array(n).fill(-1);
    this.sides = ClipSide.build(this.f0, this.delta, this.posBelow, this.posAbove);
  }

  /**
   * Before a step at capability c: on every side, the tasks whose p̃ clamps for the first time
   * leave the shared track for a new group (explicit if they were already grouped on the other
   * side), and a cut is placed at c. Returns each side's number of clamping positions.
   */
  private placeCuts(c: number): number[] {
    if (c <= this.cSeenMax && c >= this.cSeenMin && !this.sides) return [0, 0, 0, 0];
    if (!this.sides) this.buildSides();
    this.cSeenMin = Math.min(this.cSeenMin, c);
    this.cSeenMax = Math.max(this.cSeenMax, c);
    const state = this.where;
    return this.sides!.map((side) =>
      side.cutAt(c, this.shared, this.delta, (k) => {
        const st = state[k]!;
        if (st === SHARED) state[k] = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
        // Clamped on both sides: no shared history left with anyone.
        else if (st !== EXPLICIT) this.makeExplicit(k, this.alphaOf(k), this.betaOf(k));
      }),
    );
  }

  /** The state a task that is not explicit would have, and its track (after this step's update); null: it must stay explicit. */
  private homeOf(k: number): { state: number; track: TrackScalars } | null {
    const sides = this.sides;
    const d = this.delta[k]!;
    if (!sides || d === 0) return { state: SHARED, track: this.shared };
    const up = d > 0;
    const below = sides[up ? 0 : 1]!;
    const above = sides[up ? 2 : 3]!;
    const b = this.posBelow[k]!;
    const a = this.posAbove[k]!;
    const inBelow = b < below.seen;
    const inAbove = a < above.seen;
    if (inBelow && inAbove) return null;
    if (inBelow) return { state: GROUPED_BELOW, track: below.groupAt(b) };
    if (inAbove) return { state: GROUPED_ABOVE, track: above.groupAt(a) };
    return { state: SHARED, track: this.shared };
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
      bestByKey(this.searchView(), take, 'mean', null, top);
    } else if (sample === 'thompson' && tau === 0 && this.params.shortlist === 0 && this.cells) {
      // Exact Thompson sampling without a draw per task (bots-thompson.ts).
      this.lastPaths = thompsonTopK(this.searchView(), this.rng, top);
    } else {
      const K = Math.max(this.params.shortlist, take);
      let candidates: Int32Array | null = null;
      // The grid also exists for exact steps (shortlist 0): only a positive shortlist narrows the draw.
      if (this.cells && this.params.shortlist > 0) {
        const short = new TopK(K);
        bestByKey(this.searchView(), K, sample === 'mean' ? 'mean' : 'density', this.rng.nextUint32(), short);
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
    // Capabilities per domain keep every task explicit: no shared or clipped tracks to cut.
    const cuts = implicit && !this.domainCap ? this.placeCuts(c) : null;
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
      const j = this.ex.slotOf[k]!;
      if (j >= 0) this.ex.stamp[j] = this.stepNo;
    }
    // The shared track and the clipped tracks: the same update, on four scalars each (the shared
    // track's is applied after the loop below, which compares with it).
    const rm = rho * m;
    const trackStep: TrackStep = { keep, pullA, pullB, rm: implicit ? rm : 0, c: implicit ? c : 0 };
    const next: TrackScalars = { a: 0, a2: 0, b: 0, e: 0 };
    stepTrack(this.shared, trackStep, null, next);
    this.sides?.forEach((side, i) => {
      side.step(cuts ? cuts[i]! : 0, trackStep);
    });
    // Explicit tasks not observed this step: implicit evidence one by one.
    const exA = this.ex.a;
    const exB = this.ex.b;
    const exF0 = this.ex.f0;
    const exD = this.ex.d;
    const exStamp = this.ex.stamp;
    const now = this.stepNo;
    const dc = this.domainCap;
    // Steps after its last observation before a task's own evidence can have decayed to rounding.
    const settle = lambda > 0 ? Math.ceil(Math.log(1e-15) / Math.log(1 - lambda)) : Number.POSITIVE_INFINITY;
    let back = 0;
    for (let j = 0; j < this.ex.count; j++) {
      if (exStamp[j] !== now) {
        let p = implicit ? exF0[j]! + this.capabilityOf(this.ex.task[j]!) * exD[j]! : Number.NaN;
        // A task without references follows its domain's track instead (domainTrack).
        if (this.track && rho > 0 && Number.isNaN(exF0[j]!)) p = this.track.of(this.ex.task[j]!);
        if (this.offsets && !Number.isNaN(p))
          p = this.offsets.shift(this.ex.task[j]!, Math.min(1, Math.max(0, p)));
        if (Number.isNaN(p)) {
          // No implicit evidence (none yet, or no reference for this task): only the pull to the prior.
          exA[j] = keep * exA[j]! + pullA;
          exB[j] = keep * exB[j]! + pullB;
        } else {
          p = Math.min(1, Math.max(0, p));
          exA[j] = keep * exA[j]! + pullA + rm * p;
          exB[j] = keep * exB[j]! + pullB + rm * (1 - p);
        }
        // Forgetting pulls every task back onto its track (the shared one, or the clipped group
        // its thresholds place it in): once its posterior agrees with it to rounding, it follows the
        // track again (so the explicit set stays ~ batch × (steps for (1 − λ)^t to reach 1e-15),
        // whatever N is).
        const f = exF0[j]!;
        const d = exD[j]!;
        const k = this.ex.task[j]!;
        const offset = this.offsets ? this.offsets.of(k) : 0;
        if (!dc && offset === 0 && now - exStamp[j]! >= settle && !Number.isNaN(f)) {
          const home = this.homeOf(k);
          const t = home?.track === this.shared ? next : home?.track;
          if (home && t) {
            const la = t.a + t.b * f + t.e * d;
            const lb = t.a2 + t.b * (1 - f) - t.e * d;
            if (Math.abs(exA[j]! - la) <= 1e-13 * la && Math.abs(exB[j]! - lb) <= 1e-13 * lb) {
              this.where[k] = home.state;
              this.ex.slotOf[k] = -1;
              continue;
            }
          }
        }
      }
      if (back !== j) this.ex.move(j, back);
      back++;
    }
    this.ex.count = back;
    for (let i = 0; i < batch.size; i++) {
      this.makeExplicit(batch.idx[i]!, newA[i]!, newB[i]!);
      this.ex.stamp[this.ex.slotOf[batch.idx[i]!]!] = now;
    }
    this.shared = next;
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
      this.ex.stamp[this.ex.slotOf[k]!] = this.stepNo - 1;
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
    const next = updateCapability(
      batch,
      {
        f0: this.f0,
        delta: this.delta,
        capability: this.capability,
        rho: this.rho,
        domainCap: this.domainCap,
      },
      this.params,
      report.warnings,
    );
    this.capability = next.capability;
    this.rho = next.rho;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    const { alpha, beta } = this.posterior();
    return {
      alpha: encodeArray(alpha),
      beta: encodeArray(beta),
      capability: encodeNumber(this.capability),
      rho: this.rho,
      lazy: [this.shared.a, this.shared.a2, this.shared.b, this.shared.e],
      explicit: encodeArray(this.ex.task.slice(0, this.ex.count)),
      observedAt: encodeArray(this.ex.stamp.slice(0, this.ex.count)),
      clipRange: [this.cSeenMin, this.cSeenMax],
      steps: this.stepNo,
      lastStep: encodeNumber(this.lastStep),
      ...(this.domainCap ? { domainCapability: this.domainCap.save() } : {}),
      ...(this.offsets ? { taskOffsets: this.offsets.save() } : {}),
      ...(this.track ? { domainTrack: this.track.save() } : {}),
      ...(this.sides ? { clipGroups: this.sides.map((side) => side.save()) } : {}),
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
    const [a, a2, b, e] = lazy as [number, number, number, number];
    this.shared = { a, a2, b, e };
    this.where = new Uint8Array(n);
    this.ex = new ExplicitSlots(n);
    const observedAt = decodeArray(data['observedAt'], 'int32', 'bots observedAt', list.length);
    list.forEach((k, j) => {
      if (k < 0 || k >= n) throw new DataError({ message: `bots.load: explicit task ${k} out of range` });
      this.makeExplicit(k, alpha[k]!, beta[k]!);
      this.ex.stamp[j] = observedAt[j]!;
    });
    if (this.domainCap) this.domainCap.load(data['domainCapability']);
    if (this.offsets) this.offsets.load(data['taskOffsets'], n);
    if (this.track) this.track.load(data['domainTrack']);
    this.sides = null;
    this.rebuildIndexes();
    [this.cSeenMin, this.cSeenMax] = clipRange as [number, number];
    this.loadClipGroups(data['clipGroups'], alpha, beta);
  }

  /** Restore the clipped tracks, and place every task that is not explicit on its group. */
  private loadClipGroups(groups: JsonValue | undefined, alpha: Float64Array, beta: Float64Array): void {
    const before = groups === undefined;
    if (before && this.cSeenMin >= 0 && this.cSeenMax <= 1) return;
    if (!before && (!Array.isArray(groups) || groups.length !== 4))
      throw new DataError({ message: 'bots.load: state.data.clipGroups must hold the 4 sides' });
    this.buildSides();
    this.sides!.forEach((side, i) => {
      // A state from before clipped tracks: every task that clamped is explicit in it, so one empty
      // group (null scalars) stands for all the positions clamped so far.
      const saved = before
        ? [[side.below ? this.cSeenMin : this.cSeenMax, null, null, null, null]]
        : (groups as JsonValue[])[i];
      side.load(saved, this.delta, `state.data.clipGroups[${i}]`);
      const code = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
      for (let j = 0; j < side.seen; j++) {
        const k = side.task[j]!;
        if (this.where[k] !== SHARED) continue;
        if (before) this.makeExplicit(k, alpha[k]!, beta[k]!);
        else this.where[k] = code;
      }
    });
  }
}
