import type { RejectedInput } from '../../core/rejected.ts';
import type { RejectedStore } from '../../store/rejected-store.ts';
import type { SelectorStateStore } from '../../store/selector-state-store.ts';
import type { Hooks } from '../hooks.ts';
import type { RolloutExample } from './evaluation/rollout-examples.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import type { RftParts } from './rft-parts.ts';
import type { StepRecord } from './step-record.ts';

export interface RftRunOptions {
  config: RftConfig;
  configHash: string;
  runDir: string;
  runId: string;
  parts: RftParts;
  rejected: RejectedStore;
  /** The buffer's table, named in a failed write's error (default `<run id>_experiences`). */
  bufferTable?: string;
  /**
   * Rows the task sources rejected at start-up: recorded when the run starts from step 0 (a fresh
   * run, or a resume with no checkpoint, which first deletes all the killed attempt recorded).
   */
  startRejected?: readonly RejectedInput[];
  hooks?: Hooks<RftEvents>;
  resume?: boolean;
  /** Where selector checkpoints are kept in the database (table `selector_states`). */
  selectorStates?: SelectorStateStore;
  /** Stop after this step (tests of resume); the run can be continued with `resume`. */
  stopAfter?: number;
  onStep?: (record: StepRecord, total: number) => void;
  /** The numbers measured before the first step (`accuracy`, `eval/<set>/…`), once, as step 0. */
  onStart?: (initial: Record<string, number>) => void;
  log?: (line: string) => void;
}

export interface RftRunResult {
  runId: string;
  runDir: string;
  steps: number;
  resumedFrom: number;
  history: StepRecord[];
  initialAccuracy?: number;
  finalAccuracy?: number;
  /** Evaluation-set numbers before the first step (`eval/<set>/mean@k` … keys), when measured. */
  initialEvaluation?: Record<string, number>;
  /** The best and the worst rollout of every explorer step. */
  rolloutExamples: RolloutExample[];
  counters: Record<string, number>;
  durationMs: number;
}
