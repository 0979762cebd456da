import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { updateCapability } from './bots-capability.ts';
import { stepTrack, type TrackScalars, type TrackStep } from './bots-clip-side.ts';
import { DomainCapability } from './bots-domain-capability.ts';
import { DomainTrack } from './bots-domain-track.ts';
import { BOTS_DEFAULTS, type BotsParams } from './bots-params.ts';
import { BotsPosterior } from './bots-posterior.ts';
import { bestByKey } from './bots-search.ts';
import { type BotsParts, loadBots, saveBots } from './bots-state.ts';
import { stepExplicitTasks } from './bots-step.ts';
import { TaskOffsets } from './bots-task-offset.ts';
import { type ThompsonPaths, thompsonTopK } from './bots-thompson.ts';
import { checkRates } from './reference-rates.ts';
import { TopK } from './top-k.ts';
import type { SelectContext, SelectorFeedbackReport, SelectorTaskView, TaskFeedback } from './types.ts';

export { BOTS_DEFAULTS, type BotsParams } from './bots-params.ts';
export { EXACT_GRID_MIN } from './bots-posterior.ts';

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
  /** Every task's Beta posterior: shared track, clipped groups, explicit slots (bots-posterior.ts). */
  private post: BotsPosterior;
  private hasRefs = false;
  private capability = Number.NaN;
  private rho: number;
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
    this.post = new BotsPosterior(this.params);
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
    return this.post.ex.count;
  }

  /** The posterior parameters of every task (materialised copies). */
  posterior(): { alpha: Float64Array; beta: Float64Array } {
    return this.post.materialise();
  }

  /**
   * The k tasks whose posterior puts the most density at p* (normal approximation), best first:
   * the Thompson shortlist. Ties go by index.
   */
  densityRanking(k: number): string[] {
    this.requireInit('densityRanking');
    const top = new TopK(Math.min(k, this.ids.length));
    bestByKey(this.post.searchView(), top.capacity, 'density', null, top);
    return Array.from(top.sorted(), (i) => this.ids[i]!);
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
    const weak = view.features[this.params.weakColumn];
    const strong = view.features[this.params.strongColumn];
    this.post.grow(weak, strong, this.hasRefs, offset, view.ids.length, this.domainCap !== null);
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
      const a = this.post.alphaOf(k);
      out[i] = a / (a + this.post.betaOf(k));
    }
    return out;
  }

  protected pick(n: number): Int32Array {
    const take = Math.min(n, this.ids.length);
    const { tau, sample } = this.params;
    const top = new TopK(take);
    if (sample === 'mean' && tau === 0) {
      // Deterministic scores: the exact top-k by |p* − mean| (ties by index).
      bestByKey(this.post.searchView(), take, 'mean', null, top);
    } else if (sample === 'thompson' && tau === 0 && this.params.shortlist === 0 && this.post.gridded) {
      // Exact Thompson sampling without a draw per task (bots-thompson.ts).
      this.lastPaths = thompsonTopK(this.post.searchView(), this.rng, top);
    } else this.drawScores(take, top);
    const picked = top.sorted();
    if (picked.length === n) return picked;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
  }

  /** A score drawn per task (or per shortlisted task): a Thompson draw or the mean, Gumbel-perturbed when τ > 0. */
  private drawScores(take: number, top: TopK): void {
    const { target, tau, sample } = this.params;
    const K = Math.max(this.params.shortlist, take);
    let candidates: Int32Array | null = null;
    // The grid also exists for exact steps (shortlist 0): only a positive shortlist narrows the draw.
    if (this.post.gridded && this.params.shortlist > 0) {
      const short = new TopK(K);
      bestByKey(
        this.post.searchView(),
        K,
        sample === 'mean' ? 'mean' : 'density',
        this.rng.nextUint32(),
        short,
      );
      candidates = short.indices();
    }
    const count = candidates ? candidates.length : this.ids.length;
    for (let i = 0; i < count; i++) {
      const k = candidates ? candidates[i]! : i;
      const a = this.post.alphaOf(k);
      const b = this.post.betaOf(k);
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
    const cuts = implicit && !this.domainCap ? this.post.placeCuts(c) : null;
    const keep = 1 - lambda;
    const pullA = lambda * priorAlpha;
    const pullB = lambda * priorBeta;
    this.observeOffsets(batch);
    const observed = this.observedPosteriors(batch, keep, pullA, pullB, rho);
    // The shared track and the clipped tracks: the same update, on four scalars each (the shared
    // track's is applied after the explicit tasks' step, which compares with it).
    const rm = rho * m;
    const trackStep: TrackStep = { keep, pullA, pullB, rm: implicit ? rm : 0, c: implicit ? c : 0 };
    const next: TrackScalars = { a: 0, a2: 0, b: 0, e: 0 };
    stepTrack(this.post.shared, trackStep, null, next);
    this.post.sides?.forEach((side, i) => {
      side.step(cuts ? cuts[i]! : 0, trackStep);
    });
    // Explicit tasks not observed this step: implicit evidence one by one.
    const now = this.stepNo;
    stepExplicitTasks(
      this.post,
      { keep, pullA, pullB, rm, now, nextShared: next },
      lambda,
      (k) => this.implicitRate(k, implicit, rho),
      (k) => !this.domainCap && (this.offsets ? this.offsets.of(k) : 0) === 0,
    );
    for (let i = 0; i < batch.size; i++) {
      this.post.makeExplicit(batch.idx[i]!, observed.a[i]!, observed.b[i]!);
      this.post.ex.stamp[this.post.ex.slotOf[batch.idx[i]!]!] = now;
    }
    this.post.shared = next;
    this.stepNo++;
  }

  /**
   * The observed tasks' new posteriors, from their old ones. For them p̃ = r̄, so implicit and
   * explicit terms together add m·r̄ successes and m·(1 − r̄) failures. Their slots are stamped.
   */
  private observedPosteriors(
    batch: ObservedBatch,
    keep: number,
    pullA: number,
    pullB: number,
    rho: number,
  ): { a: Float64Array; b: Float64Array } {
    const m = this.params.m;
    const a = new Float64Array(batch.size);
    const b = new Float64Array(batch.size);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const r = this.evidenceRate(batch, i);
      a[i] = keep * this.post.alphaOf(k) + pullA + (1 - rho) * m * r + rho * m * r;
      b[i] = keep * this.post.betaOf(k) + pullB + (1 - rho) * m * (1 - r) + rho * m * (1 - r);
      const j = this.post.ex.slotOf[k]!;
      if (j >= 0) this.post.ex.stamp[j] = this.stepNo;
    }
    return { a, b };
  }

  /** The pass rate implicit evidence aims at for explicit task k this step (NaN: none). */
  private implicitRate(k: number, implicit: boolean, rho: number): number {
    const f = this.post.f0[k]!;
    let p = implicit ? f + this.capabilityOf(k) * this.post.delta[k]! : Number.NaN;
    // A task without references follows its domain's track instead (domainTrack).
    if (this.track && rho > 0 && Number.isNaN(f)) p = this.track.of(k);
    if (this.offsets && !Number.isNaN(p)) p = this.offsets.shift(k, Math.min(1, Math.max(0, p)));
    return p;
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
      this.post.makeExplicit(k, this.post.alphaOf(k) + m * r, this.post.betaOf(k) + m * (1 - r));
      this.post.ex.stamp[this.post.ex.slotOf[k]!] = this.stepNo - 1;
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
    const f = this.post.f0[k]!;
    if (!Number.isNaN(f)) {
      const c = this.capabilityOf(k);
      return Number.isNaN(c) ? Number.NaN : Math.min(1, Math.max(0, f + c * this.post.delta[k]!));
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
        f0: this.post.f0,
        delta: this.post.delta,
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

  private parts(): BotsParts {
    return { domainCap: this.domainCap, offsets: this.offsets, track: this.track };
  }

  protected override saveData(): { [key: string]: JsonValue } {
    const { capability, rho, stepNo, lastStep } = this;
    return saveBots(this.post, { capability, rho, stepNo, lastStep }, this.parts());
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const s = loadBots(this.post, data, this.ids.length, this.parts());
    this.capability = s.capability;
    this.rho = s.rho;
    this.stepNo = s.stepNo;
    this.lastStep = s.lastStep;
  }
}
