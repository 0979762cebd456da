import type { RejectedStore } from '../../buffer/rejected-store.ts';
import type { SelectorStateStore } from '../../buffer/selector-state-store.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import type { JsonValue } from '../../core/task.ts';
import type { StageRoundNumbers } from '../../selectors/stages/live-rounds.ts';
import type { RolloutExample } from '../evaluation/rollout-examples.ts';
import type { Hooks } from '../hooks.ts';
import type { RftConfig } from '../rft-config.ts';
import type { RftEvents } from '../rft-events.ts';
import type { RftParts } from '../rft-parts.ts';
import type { ExperienceOpsReport } from './operator-report.ts';

/**
 * The explorer's half of a step record. With stages that take rounds (speed, dapo_ds) it also
 * carries what they spent (`rolloutsSpent`, `screenRollouts`, `screenedOut`, `discardedGroups`, …).
 */
export interface ExploreNumbers extends Partial<StageRoundNumbers> {
  tasks: number;
  rollouts: number;
  meanReward: number;
  /** Share of selected groups whose rewards were not all equal (the ones that carry a gradient). */
  effectiveTaskRatio: number;
  meanDifficulty: number;
  failedGroups: number;
  emptyResponses: number;
  experiencesKept: number;
  experiencesDropped: number;
  /** Every experience operator's numbers this step (flattened into `exp/<step>/<metric>` keys). */
  operators?: ExperienceOpsReport;
  /** Agent runs: the step's tool-call figures (`tool/calls`, … keys; agents/tool-figures.ts). */
  tools?: Record<string, number>;
}

/** One explorer step's numbers (one line of metrics.jsonl, one point on the report's charts). */
export interface StepRecord extends ExploreNumbers {
  step: number;
  explorerVersion: number;
  trainSteps: number;
  trainLoss: number;
  exploreMs: number;
  trainMs: number;
  stepMs: number;
  rolloutsPerSecond: number;
  accuracy?: number;
  [key: string]: JsonValue | undefined;
}

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
