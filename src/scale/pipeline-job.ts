import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';

/** The one BullMQ queue pipeline shards of every run go through (rollouts have their own). */
export const PIPELINE_QUEUE = 'winnow-pipeline-shards';

/**
 * What a pipeline worker needs to run a task pipeline's row-wise steps exactly as the coordinator
 * would: the parsed config, the paths it resolves against, and the run's id and seed (operator
 * streams are seeded from them). Stored once per run in Redis under the run's context key.
 */
export const PipelineContextSchema = z.object({
  runId: z.string().min(1),
  config: z.record(z.string(), z.unknown()),
  baseDir: z.string(),
  configFile: z.string().optional(),
  dbDir: z.string(),
  seed: z.number().int(),
  /**
   * Workers encode their shard's cleaned rows in the task table's typed layout, with their dedup key
   * hashes (and report measures) beside them, in one binary frame in Redis under `shardRowsKey`
   * (shard-frame.ts) instead of sending them as JSON: the coordinator lands them without decoding a
   * row. Set by the coordinator when the chain after the row-wise steps is exact_dedup alone.
   */
  encodeRows: z.boolean().default(false),
  /** With `encodeRows`: measure each row for the run's report (output.report). */
  measureRows: z.boolean().default(true),
});
export type PipelineContext = z.infer<typeof PipelineContextSchema>;

/**
 * One shard of the input: a byte range of a JSON Lines file that starts at a line start (its first
 * line is line `lineOffset + 1` of the file), or a whole file of any format (`range: null`).
 */
export const ShardSchema = z.object({
  index: z.number().int().nonnegative(),
  file: z.string().min(1),
  range: z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive() }).nullable(),
  lineOffset: z.number().int().nonnegative(),
});
export type Shard = z.infer<typeof ShardSchema>;

export const ShardJobSchema = z.object({
  context: z.string().min(1),
  runId: z.string().min(1),
  shard: ShardSchema,
});
export type ShardJob = z.infer<typeof ShardJobSchema>;

/** A read or map rejection (no run id: the coordinator stamps its own when it records it). */
const RejectedSchema = z.object({
  step: z.string(),
  reason: z.string(),
  file: z.string(),
  row: z.number().int(),
  rowId: z.string().optional(),
  payload: z.string(),
});

const StepRejectionSchema = z.object({
  step: z.string(),
  reason: z.string(),
  row: z.record(z.string(), z.unknown()),
});

/** One read batch of a shard after mapping and the row-wise steps, as the coordinator lands it. */
export const ShardBatchSchema = z.object({
  records: z.number().int().nonnegative(),
  readRejected: z.array(RejectedSchema),
  mapRejected: z.array(RejectedSchema),
  mapMs: z.number(),
  /**
   * Cleaned rows (Task objects, in input order) as one plain JSON array, as the in-process worker
   * threads hand them over: parsing one string is several times cheaper for the coordinator, which
   * is the part that does not scale out. '[]' when the shard's rows are in its frame (`encodeRows`).
   */
  tasksJson: z.string(),
  tasks: z.number().int().nonnegative(),
  rejected: z.array(StepRejectionSchema),
  /**
   * exact_dedup's per-row half (key hashes of the cleaned rows' text, computed by the worker as the
   * worker threads do); the coordinator keeps the one global ordered key set. Null without exact_dedup,
   * and with `encodeRows` (the hashes are then in the shard's frame, as typed arrays).
   */
  exact: z
    .object({
      params: z.string(),
      field: z.string(),
      keys: z.array(z.number()),
      checks: z.array(z.number().int()),
    })
    .nullable(),
  warnings: z.array(z.object({ step: z.string(), message: z.string() })),
});
export type ShardBatch = z.infer<typeof ShardBatchSchema>;

/** One row-wise step's counts over a shard (src/operators/step-metrics.ts). */
export const StepMetricsSchema = z.object({
  step: z.string(),
  op: z.string(),
  kind: z.string(),
  rowsIn: z.number(),
  rowsOut: z.number(),
  dropped: z.number(),
  reasons: z.record(z.string(), z.number()),
  warnings: z.number(),
  ms: z.number(),
  extra: z.record(z.string(), z.number()),
});

export const ShardResultSchema = z.object({
  batches: z.array(ShardBatchSchema),
  /** The row-wise steps' counts over this shard; the coordinator adds those of landed shards only. */
  metrics: z.array(StepMetricsSchema),
  worker: z.string(),
  /**
   * With `encodeRows`: where the shard's frame is (its batches' rows one after another, their
   * sidecar beside them) and what it holds; the frame itself is checked when it is read.
   */
  frame: z
    .object({
      key: z.string().min(1),
      rows: z.number().int().nonnegative(),
      /** The sidecar carries exact_dedup's key hashes. */
      exact: z.boolean(),
      /** Taskset names the sidecar's measures index into; null: no measures (no report). */
      tasksets: z.array(z.string()).nullable(),
    })
    .nullable()
    .default(null),
});
export type ShardResult = z.infer<typeof ShardResultSchema>;

/** A finished job's result, checked; a malformed one fails the run with one line naming the shard. */
export function shardResultOf(raw: unknown, where: string): ShardResult {
  let value = raw;
  // An object since workers return one (BullMQ parsed it once); a string from an older worker.
  if (typeof raw === 'string')
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  const parsed = ShardResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new DataError({
    message: `${where}: its result is malformed (${issue ? `${issue.path.join('.') || 'result'}: ${issue.message}` : 'not a shard result'}; run the same winnow version on every machine)`,
  });
}

/** Redis key of a pipeline run's context (a database is named by a hash of its absolute path). */
export function pipelineContextKeyOf(dbDir: string, runId: string): string {
  return `winnow:pipeline-context:${createHash('sha1').update(`${dbDir}\n${runId}`).digest('hex').slice(0, 16)}`;
}

/** A shard job's id is a function of (run, shard): a reclaimed job is the same job, redone and landed once. */
export function shardJobId(context: string, shard: number): string {
  const h = createHash('sha1').update(`${context}\n${shard}`).digest('hex');
  return `p-${shard}-${h.slice(0, 20)}`;
}

/**
 * Where a shard job's frame (encoded rows) waits for the coordinator: a function of the job, so a
 * redone job overwrites the same key with the same rows (never a second copy).
 */
export function shardRowsKey(jobId: string): string {
  return `winnow:pipeline-rows:${jobId}`;
}
