export * from './annotate.ts';
export * from './checkpoints.ts';
export * from './compare/index.ts';
export * from './config-diff.ts';
export type { EvalSet, EvalSetConfig } from './evaluation/eval-sets.ts';
export { evalKeys } from './evaluation/evaluate-sets.ts';
export { passAtK, type SetScores, scoreSet } from './evaluation/pass-at-k.ts';
export { type RolloutExample, RolloutExampleSchema } from './evaluation/rollout-examples.ts';
export * from './hooks.ts';
export * from './monitors/builtin.ts';
export * from './monitors/monitor.ts';
export * from './report-html.ts';
export * from './report-input.ts';
export * from './rft-build.ts';
export * from './rft-config.ts';
export * from './rft-events.ts';
export * from './rft-parts.ts';
export * from './rft-run.ts';
export {
  type ExperienceOpsReport,
  ExperienceOpsReportSchema,
  type OperatorStep,
  OperatorStepSchema,
} from './run/operator-report.ts';
export { runRftLoop } from './run/run-loop.ts';
export type { ExploreNumbers, StepRecord } from './run/step-record.ts';
export type { RftRunOptions, RftRunResult } from './run/types.ts';
export * from './run-buffer.ts';
export * from './run-plan.ts';
export * from './run-registries.ts';
export * from './run-removal.ts';
export * from './task-pipeline.ts';
export * from './task-pipeline-config.ts';
export * from './task-report/index.ts';
export * from './task-source.ts';
