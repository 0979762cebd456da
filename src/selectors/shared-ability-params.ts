// The shared-ability selector's settings and their defaults (the registry's schema fills them in).

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
