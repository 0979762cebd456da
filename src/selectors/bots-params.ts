// BOTS's parameters and their defaults (the paper's, except where a comment says otherwise).

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
   * 0 (the default): exact — every task's draw counts; above 4,096 tasks the Thompson step goes
   * through the grid and draws only the tasks that can land near p* (bots-thompson.ts). > 0: above
   * this many tasks, Thompson / softmax sampling runs on the `shortlist` tasks whose posterior puts
   * the most density at p* (normal approximation) — the approximation used before the exact step
   * was fast; see docs/selectors.md.
   */
  shortlist: number;
  /** Cells per axis of the (f0, f1) grid over unobserved tasks (0: ≈ √(N/64)); set, it also sends exact Thompson steps through the grid at any N. */
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
  shortlist: 0,
  grid: 0,
  updatePer: 'feedback',
  capabilityBy: 'all',
  trainedGain: 0,
  taskOffset: 0,
  domainTrack: false,
};
