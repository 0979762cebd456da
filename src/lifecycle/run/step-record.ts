import type { JsonValue } from '../../core/task.ts';
import type { StageRoundNumbers } from '../../selectors/stages/live-rounds.ts';
import type { ExperienceOpsReport } from './operator-report.ts';

// A step's numbers, as a types-only module: monitors and the HTML report read step records, and
// must not import the run's options (run/types.ts → rft-config.ts → the registries → the monitors)
// back.

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
