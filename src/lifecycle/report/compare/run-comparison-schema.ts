import { z } from 'zod';

/**
 * The data a run comparison is drawn from: what `winnow compare` embeds in its HTML file and what
 * the Studio's comparison view serves. One schema, so both read the same shape.
 */

/** How a run stands: the database's word when it is known, else what its folder shows. */
export const runStatusSchema = z.enum(['completed', 'failed', 'interrupted', 'running', 'unfinished']);

export const runHeadlineSchema = z.strictObject({
  /** Held-out accuracy before the first step (null: not measured). */
  initialAccuracy: z.number().nullable(),
  /** Held-out accuracy at the last measurement. */
  finalAccuracy: z.number().nullable(),
  /** Mean reward of the last step's rollouts. */
  finalMeanReward: z.number().nullable(),
  /** Wall time of the run (null: the run has not written run.json yet). */
  durationMs: z.number().nullable(),
});

export const comparedRunSchema = z.strictObject({
  id: z.string().min(1),
  dir: z.string().min(1),
  name: z.string(),
  status: runStatusSchema,
  /** Why the status reads as it does (`from the run folder: no run.json yet`). */
  statusNote: z.string().optional(),
  configHash: z.string(),
  /** The last step in metrics.jsonl (0: none yet). */
  steps: z.number().int().min(0),
  /** `lifecycle.steps` of its config. */
  plannedSteps: z.number().int().min(0).nullable(),
  headline: runHeadlineSchema,
  /** The parsed config the run stored in run-config.json. */
  config: z.record(z.string(), z.unknown()),
});

export const metricUnitSchema = z.enum(['ratio', 'number', 'ms']);

export const comparedMetricSchema = z.strictObject({
  /** The metrics.jsonl key (`meanReward`, `eval/gsm8k/pass@4`). */
  key: z.string().min(1),
  label: z.string().min(1),
  /** ratio: a share in [0, 1], shown as a percentage. */
  unit: metricUnitSchema,
  description: z.string(),
  /** Ids of the runs with at least one value. */
  runs: z.array(z.string()),
});

/** A metric the comparison looks for that no run records, and why. */
export const missingMetricSchema = z.strictObject({
  key: z.string().min(1),
  label: z.string().min(1),
  reason: z.string().min(1),
});

/** One config path whose values are not the same in every run. */
export const configDiffRowSchema = z.strictObject({
  /** Dotted path into the config (`buffer.sampler.type`). */
  path: z.string().min(1),
  /** False for keys that do not change results (steps, monitors, concurrency…: config-diff.ts). */
  changesResults: z.boolean(),
  /** One entry per run, in run order: the value as JSON text, null when the run's config lacks the key. */
  values: z.array(z.string().nullable()),
});

export const runComparisonSchema = z.strictObject({
  runs: z.array(comparedRunSchema).min(1),
  /** Every step any run recorded (and 0 where a run measured before its first step), ascending. */
  steps: z.array(z.number().int().min(0)),
  metrics: z.array(comparedMetricSchema),
  missing: z.array(missingMetricSchema),
  /** metric key → run id → one value per entry of `steps` (null: not recorded at that step). */
  series: z.record(z.string(), z.record(z.string(), z.array(z.number().nullable()))),
  configDiff: z.array(configDiffRowSchema),
});

export type RunStatus = z.infer<typeof runStatusSchema>;
export type RunHeadline = z.infer<typeof runHeadlineSchema>;
export type ComparedRun = z.infer<typeof comparedRunSchema>;
export type MetricUnit = z.infer<typeof metricUnitSchema>;
export type ComparedMetric = z.infer<typeof comparedMetricSchema>;
export type MissingMetric = z.infer<typeof missingMetricSchema>;
export type ConfigDiffRow = z.infer<typeof configDiffRowSchema>;
export type RunComparison = z.infer<typeof runComparisonSchema>;
