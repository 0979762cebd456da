// A method as the protocol sees it: a name, what it reads about the learner, how it was tuned.
import type { InformationSource } from './information.ts';
import type { TuningRule } from './tuning.ts';

export interface ProtocolMethod {
  name: string;
  description: string;
  information: InformationSource[];
  tuning: TuningRule;
}

/** Budgets (shares of the baseline's full run) and targets (shares of the baseline's gain) every table reads. */
export const BUDGET_SHARES = [0.25, 0.5, 1] as const;
export const TARGET_SHARES = [0.5, 0.75, 0.9] as const;
