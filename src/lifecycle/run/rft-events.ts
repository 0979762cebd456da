import type { Experience } from '../../core/experience.ts';
import type { RolloutFailure } from '../../core/explore-result.ts';
import type { Task } from '../../core/task.ts';
import type { TrainMetrics } from '../../trainer/trainer.ts';
import type { ExperienceOpsReport } from './operator-report.ts';

/**
 * Every checkpoint of an RFT run, in the order a sync-mode step emits them. Events carrying `rows`
 * can be transformed or vetoed by hooks (vetoed rows are recorded in `rejected` with the reason).
 */
export interface RftEvents {
  beforeSelect: { step: number; batchTasks: number };
  afterSelect: { step: number; rows: Task[] };
  afterRollout: { step: number; rows: Experience[]; failures: RolloutFailure[] };
  /** Selector feedback delivered (as soon as the step's rollouts are in). */
  afterFeedback: { step: number; groups: number; mixedGroups: number };
  /** `operators`: what every experience operator did this step (metrics, drops, warnings). */
  afterExperienceOps: { step: number; rows: Experience[]; operators: ExperienceOpsReport };
  afterBufferWrite: { step: number; written: number };
  beforeTrainStep: { step: number; trainStep: number; rows: Experience[] };
  afterTrainStep: { step: number; trainStep: number; version: number; metrics: TrainMetrics };
  onSync: { step: number; version: number };
  /**
   * Held-out accuracy, or (with `set`) one evaluation set: `accuracy` is then its mean@k, and
   * `k` and `passAtK` are given too.
   */
  onEvaluate: { step: number; accuracy: number; tasks: number; set?: string; k?: number; passAtK?: number };
  onCheckpoint: { step: number; dir: string };
  onError: { step: number; error: Error };
}

export const RFT_EVENT_ORDER: readonly (keyof RftEvents)[] = [
  'beforeSelect',
  'afterSelect',
  'afterRollout',
  'afterFeedback',
  'afterExperienceOps',
  'afterBufferWrite',
  'beforeTrainStep',
  'afterTrainStep',
  'onSync',
  'onEvaluate',
  'onCheckpoint',
  'onError',
];
