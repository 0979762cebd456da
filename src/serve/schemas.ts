import { z } from 'zod';
import { ExperienceFieldsSchema } from '../core/experience.ts';
import { JsonObjectSchema, TaskSchema } from '../core/task.ts';
import { SelectorTotalsSchema } from '../selectors/types.ts';

/**
 * The wire format of `winnow serve` (docs/serve.md). Request bodies are strict: an unknown key is a
 * 400 naming it (a misspelt `logprob` must not be dropped silently). Version 1 of the API lives
 * under `/v1/`; a change that breaks a client gets a new prefix.
 */
export const SERVE_API_VERSION = 1;

/** The largest `n` one select or sample request may ask for. */
export const MAX_BATCH = 100_000;

const count = z.number().int().min(1).max(MAX_BATCH);

/**
 * A client's id for one logical request, the same on every retry of it: a select or feedback whose
 * id the server has answered before gets that answer again (`repeated: true`) and changes nothing.
 */
export const RequestIdSchema = z
  .string()
  .min(1)
  .max(200)
  .describe('An id for this request, reused on its retries: a repeat gets the first answer again.');

/** `POST /v1/select`: the next `n` tasks (default: explorer.batchTasks + explorer.extraGroups). */
export const SelectRequestSchema = z.strictObject({
  n: count.optional().describe('How many tasks (at most the task set’s size).'),
  requestId: RequestIdSchema.optional(),
});
export type SelectRequest = z.output<typeof SelectRequestSchema>;

export const SelectResponseSchema = z.object({
  /** 1-based select step (the explorer step a run loop would be at). */
  step: z.number().int().positive(),
  taskIds: z.array(z.string()),
  tasks: z.array(TaskSchema),
  /** Present (true) when this answers a request id seen before: nothing was selected anew. */
  repeated: z.literal(true).optional(),
});
export type SelectResponse = z.output<typeof SelectResponseSchema>;

/**
 * One task's outcome: its rollouts' rewards, or a pass rate standing for `count` rewards equal to
 * it (a pass rate p over n rollouts adds n·p successes and n·(1−p) failures to a Beta posterior).
 * `null` in `rewards` is an invalid reward (JSON has no NaN): the selector leaves it out.
 */
export const FeedbackItemSchema = z
  .strictObject({
    taskId: z.string().min(1),
    rewards: z.array(z.number().nullable()).min(1).optional(),
    passRate: z.number().min(0).max(1).optional(),
    count: z.number().int().min(1).max(MAX_BATCH).optional(),
    taskset: z.string().min(1).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.rewards === undefined) === (v.passRate === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['rewards'],
        message: 'give either rewards (a list) or passRate (0–1), not both and not neither',
      });
    if (v.count !== undefined && v.passRate === undefined)
      ctx.addIssue({ code: 'custom', path: ['count'], message: 'count goes with passRate' });
  });
export type FeedbackItem = z.output<typeof FeedbackItemSchema>;

/** `POST /v1/feedback`: one explorer step's outcomes, fed to the selector in one call. */
export const FeedbackRequestSchema = z.strictObject({
  results: z.array(FeedbackItemSchema).min(1).max(MAX_BATCH),
  /**
   * The select step these results answer. Feedback for a step that was already fed is recognised
   * and not applied again. Without it, the feedback answers the newest selection still waiting.
   */
  step: z.number().int().positive().optional(),
  requestId: RequestIdSchema.optional(),
});
export type FeedbackRequest = z.output<typeof FeedbackRequestSchema>;

export const FeedbackResponseSchema = z.object({
  /** 1-based feedback call. */
  step: z.number().int().positive(),
  groups: z.number().int(),
  rewards: z.number().int(),
  mixedGroups: z.number().int(),
  clippedRewards: z.number().int(),
  droppedRewards: z.number().int(),
  warnings: z.array(z.string()),
  /** The select step this feedback settled (absent when no selection was waiting). */
  selectStep: z.number().int().positive().optional(),
  /** Present (true) when this feedback was applied before (same request id or step): not counted again. */
  repeated: z.literal(true).optional(),
});
export type FeedbackResponse = z.output<typeof FeedbackResponseSchema>;

/** `GET /v1/pending`: the selections that have not had their feedback yet, oldest first. */
export const PendingResponseSchema = z.object({
  selectSteps: z.number().int(),
  feedbackSteps: z.number().int(),
  pending: z.array(SelectResponseSchema.extend({ requestId: z.string().optional() })),
});
export type PendingResponse = z.output<typeof PendingResponseSchema>;

const E = ExperienceFieldsSchema.shape;

/**
 * One experience as a client writes it: the Experience schema (src/core/experience.ts), with the
 * fields the server can fill made optional — `id`, `groupId`, `taskset`, `exploreStep`,
 * `runIndex`, `modelVersion`, `prompt` (see docs/serve.md) — and `reward` allowed to be null
 * (an invalid reward; JSON has no NaN). Per-token arrays cover the response tokens only.
 */
export const ExperienceWriteSchema = z.strictObject({
  ...E,
  id: E.id.optional(),
  taskset: E.taskset.optional(),
  groupId: E.groupId.optional(),
  runIndex: E.runIndex.optional(),
  modelVersion: E.modelVersion.optional(),
  exploreStep: E.exploreStep.optional(),
  reward: z.number().nullable(),
  info: JsonObjectSchema.optional(),
});
export type ExperienceWrite = z.output<typeof ExperienceWriteSchema>;

/** `POST /v1/experiences`: rollouts to store, whole groups per request (group operators see them together). */
export const ExperiencesRequestSchema = z.strictObject({
  experiences: z.array(ExperienceWriteSchema).min(1).max(MAX_BATCH),
});
export type ExperiencesRequest = z.output<typeof ExperiencesRequestSchema>;

export const DroppedRowSchema = z.object({ id: z.string(), step: z.string(), reason: z.string() });

export const ExperiencesResponseSchema = z.object({
  received: z.number().int(),
  /**
   * Rows the experience operators kept and handed to the buffer. The buffer skips ids it already
   * holds (writes are idempotent, so a retried request adds nothing) and evicts beyond its capacity:
   * `bufferSize` is what it holds after this write.
   */
  kept: z.number().int(),
  /** Rows the experience operators dropped (also recorded in the `rejected` table). */
  dropped: z.array(DroppedRowSchema),
  bufferSize: z.number().int(),
});
export type ExperiencesResponse = z.output<typeof ExperiencesResponseSchema>;

/** `POST /v1/sample`: a training batch, leased until acknowledged. */
export const SampleRequestSchema = z.strictObject({
  n: count.optional().describe('Batch size (default lifecycle.trainBatch, else batchTasks × repeat).'),
  modelVersion: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('The trainer’s current version, for staleness rules (default: the newest written).'),
});
export type SampleRequest = z.output<typeof SampleRequestSchema>;

/** An experience on the wire: NaN rewards become null. */
export const SampledExperienceSchema = ExperienceFieldsSchema.extend({ reward: z.number().nullable() });

export const SampleResponseSchema = z.object({
  /** The lease: acknowledge it (or any later one) once the training it fed is durable. */
  lease: z.number().int().positive(),
  experiences: z.array(SampledExperienceSchema),
  /** Importance weights (1 unless the sampler is prioritised). */
  weights: z.array(z.number()),
  /** Rows left out as too stale (recorded in `rejected`). */
  skipped: z.number().int(),
  /** Why the rate limiter held the batch back (then `experiences` is empty). */
  blocked: z.string().optional(),
});
export type SampleResponse = z.output<typeof SampleResponseSchema>;

/** `POST /v1/ack`: acknowledge every lease up to and including `lease`. */
export const AckRequestSchema = z.strictObject({ lease: z.number().int().positive() });
export type AckRequest = z.output<typeof AckRequestSchema>;

export const AckResponseSchema = z.object({
  lease: z.number().int(),
  /** The newest acknowledged lease after this call. */
  acknowledgedThrough: z.number().int(),
});

export const MetricsResponseSchema = z.object({
  runId: z.string(),
  /** Mutating requests served over the run's life (each one checkpointed). */
  revision: z.number().int(),
  selectSteps: z.number().int(),
  feedbackSteps: z.number().int(),
  leases: z.number().int(),
  acknowledgedThrough: z.number().int(),
  buffer: z.object({ size: z.number().int() }),
  counters: z.record(z.string(), z.number()),
  selector: SelectorTotalsSchema,
});
export type MetricsResponse = z.output<typeof MetricsResponseSchema>;

export const HealthResponseSchema = z.object({
  status: z.literal('ok'),
  runId: z.string(),
  revision: z.number().int(),
});

export const VersionResponseSchema = z.object({
  winnow: z.string(),
  api: z.number().int(),
  selector: z.string(),
});

/** Every error body: what failed, where (the request field, e.g. `experiences[2].logprobs`) and a hint. */
export const ErrorBodySchema = z.object({
  error: z.object({
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    hint: z.string().optional(),
  }),
});
export type ErrorBody = z.output<typeof ErrorBodySchema>;
