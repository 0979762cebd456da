import type { Experience } from './experience.ts';

// What a step's rollouts give back, as a types-only module: the explorer produces these and the
// selection stages (selectors/stages) consume them through a rollout callback, so selectors need
// not import the explorer.

/** A further round of rollouts in one step (pre-rollout stages): its group size and a seed salt. */
export interface ExploreRound {
  repeat: number;
  salt: string;
}

/** A rollout group that could not be produced, and why. The step goes on without it. */
export interface RolloutFailure {
  taskId: string;
  groupId: string;
  kind: 'timeout' | 'error';
  reason: string;
  attempts: number;
}

export interface ExploreResult {
  experiences: Experience[];
  failures: RolloutFailure[];
  metrics: {
    tasks: number;
    rollouts: number;
    failedGroups: number;
    timeouts: number;
    retries: number;
    emptyResponses: number;
    batched: number;
    ms: number;
  };
}
