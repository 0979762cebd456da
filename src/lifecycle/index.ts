export * from './hooks.ts';
export * from './pipeline/report/index.ts';
export * from './pipeline/task-pipeline.ts';
export * from './pipeline/task-pipeline-config.ts';
export * from './pipeline/task-source.ts';
export * from './report/compare/index.ts';
export * from './report/report-html.ts';
export * from './report/report-input.ts';
export * from './run/annotate.ts';
export * from './run/checkpoint-files.ts';
export * from './run/config-diff.ts';
export type { EvalSet, EvalSetConfig } from './run/evaluation/eval-sets.ts';
export { evalKeys } from './run/evaluation/evaluate-sets.ts';
export { passAtK, type SetScores, scoreSet } from './run/evaluation/pass-at-k.ts';
export { type RolloutExample, RolloutExampleSchema } from './run/evaluation/rollout-examples.ts';
export * from './run/monitors/builtin.ts';
export * from './run/monitors/monitor.ts';
export {
  type ExperienceOpsReport,
  ExperienceOpsReportSchema,
  type OperatorStep,
  OperatorStepSchema,
} from './run/operator-report.ts';
export * from './run/rft-build.ts';
export * from './run/rft-config.ts';
export * from './run/rft-events.ts';
export * from './run/rft-parts.ts';
export * from './run/rft-run.ts';
export * from './run/run-buffer.ts';
export { runRftLoop } from './run/run-loop.ts';
export * from './run/run-plan.ts';
export * from './run/run-registries.ts';
export * from './run/run-removal.ts';
export type { ExploreNumbers, StepRecord } from './run/step-record.ts';
export type { RftRunOptions, RftRunResult } from './run/types.ts';
