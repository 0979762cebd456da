import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ExperienceSchema } from '../core/experience.ts';
import { TaskSchema } from '../core/task.ts';

/** The one BullMQ queue rollout jobs of every run go through; a job names its run's context key. */
export const ROLLOUT_QUEUE = 'winnow-rollouts';

/**
 * What a worker needs to build the run's explorer (model, workflow, reward) exactly as the
 * coordinator would: the parsed config and the paths it resolves against. Stored once per run in
 * Redis under the run's context key; the config stays a plain JSON object here and is handed to
 * `prepareRft` as the coordinator's own parsed config.
 */
export const RunContextSchema = z.object({
  runId: z.string().min(1),
  config: z.record(z.string(), z.unknown()),
  baseDir: z.string(),
  configFile: z.string().optional(),
  dbDir: z.string(),
  runDir: z.string(),
  bufferTable: z.string(),
  seed: z.number().int(),
});
export type RunContext = z.infer<typeof RunContextSchema>;

/**
 * The weights a job's rollouts must come from (rollout-weights.ts). `served`: the model name the
 * requests carry (weight sync: the coordinator loaded that adapter on the server). `files`: a Redis
 * hash holding the coordinator's explorer weights of that version (the in-process tiny policy).
 */
export const WeightsRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('served'), version: z.number().int().nonnegative(), model: z.string().min(1) }),
  z.object({ kind: z.literal('files'), version: z.number().int().nonnegative(), key: z.string().min(1) }),
]);
export type WeightsRef = z.infer<typeof WeightsRefSchema>;

/** One task group of one explorer step: roll it out `repeat` times and score it. */
export const RolloutJobSchema = z.object({
  context: z.string().min(1),
  runId: z.string().min(1),
  step: z.number().int().nonnegative(),
  version: z.number().int().nonnegative(),
  task: TaskSchema,
  weights: WeightsRefSchema.optional(),
});
export type RolloutJob = z.infer<typeof RolloutJobSchema>;

const FailureSchema = z.object({
  taskId: z.string(),
  groupId: z.string(),
  kind: z.enum(['timeout', 'error']),
  reason: z.string(),
  attempts: z.number().int(),
});

/** What a worker hands back: the group's experiences (or why it failed) and the explorer's counts. */
export const RolloutResultSchema = z.object({
  experiences: z.array(ExperienceSchema),
  failures: z.array(FailureSchema),
  metrics: z.object({
    timeouts: z.number(),
    retries: z.number(),
    emptyResponses: z.number(),
  }),
  worker: z.string(),
});
export type RolloutResult = z.infer<typeof RolloutResultSchema>;

/**
 * What makes a run one run to the queue: its database, its id, when it started (kept across
 * --resume; a run id reused after `winnow gc` or `--overwrite` starts anew) and the hash of the keys
 * that decide its results. Jobs and the stored context are keyed by all four, so no run is ever
 * handed the cached rollouts of another.
 */
export interface RunIdentity {
  dbDir: string;
  runId: string;
  /** The run record's start (epoch ms). */
  startedAt: number;
  configHash: string;
}

/** Redis key of a run's context (a database is named by a hash of its absolute path). */
export function contextKeyOf(run: RunIdentity): string {
  const h = createHash('sha1').update(`${run.dbDir}\n${run.runId}\n${run.startedAt}\n${run.configHash}`);
  return `winnow:context:${h.digest('hex').slice(0, 16)}`;
}

/** The short id of a context key (its last part): every job id of the run starts `r-<it>-`. */
export function contextIdOf(context: string): string {
  return context.slice(context.lastIndexOf(':') + 1);
}

/**
 * A job's id is a function of (run, step, version, task): adding it twice (a redone step, a resumed
 * coordinator) finds the job already there, and its result is read instead of rolling out again.
 * It starts with the run's context id, so the jobs of a run can be found and removed (run-jobs.ts).
 */
export function rolloutJobId(context: string, step: number, version: number, taskId: string): string {
  const h = createHash('sha1').update(`${context}\n${step}\n${version}\n${taskId}`).digest('hex');
  return `${rolloutJobPrefix(context)}${step}-${h.slice(0, 20)}`;
}

/** The id prefix every rollout job of the run with this context shares. */
export function rolloutJobPrefix(context: string): string {
  return `r-${contextIdOf(context)}-`;
}
