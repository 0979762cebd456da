import { z } from 'zod';
import { FieldMappingSchema } from '../io/mapping.ts';
import { PredicateSchema } from '../operators/predicate.ts';

/** Where tasks come from: a dataset file (read and mapped on the fly) or a task table in the database. */
export const TaskSourceSchema = z.union([
  z.strictObject({
    path: z.string().min(1).describe('Dataset file, relative to the config file.'),
    mapping: FieldMappingSchema,
    filter: PredicateSchema.optional().describe(
      'Keep only tasks matching this predicate, e.g. { field: features.difficulty, lte: 0.4 }.',
    ),
    limit: z.number().int().positive().optional(),
  }),
  z.strictObject({
    table: z.string().min(1).default('tasks'),
    taskset: z.string().min(1).optional(),
    version: z.union([z.number().int(), z.string()]).optional(),
    filter: PredicateSchema.optional(),
    limit: z.number().int().positive().optional(),
  }),
]);
export type TaskSource = z.output<typeof TaskSourceSchema>;

const Params = z.record(z.string(), z.unknown()).default({});

export const ModelConfigSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('tiny'),
    /** Folder holding a tiny-policy checkpoint (manifest.json + weights.bin). */
    path: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('openai'),
    params: Params,
  }),
]);

export const FaultsSchema = z
  .strictObject({
    errorRate: z.number().min(0).max(1).default(0),
    timeoutRate: z.number().min(0).max(1).default(0),
    emptyRate: z.number().min(0).max(1).default(0),
    nanRewardRate: z.number().min(0).max(1).default(0),
  })
  .optional();

export const RftConfigSchema = z.strictObject({
  name: z.string().min(1),
  kind: z.literal('rft'),
  description: z.string().optional(),
  seed: z.number().int().default(0),
  db: z.string().optional().describe('Database folder, relative to the config file (default ./.winnow/db).'),
  runDir: z
    .string()
    .optional()
    .describe('Run folder for checkpoints, metrics and the report (default ./.winnow/runs/<name>).'),
  tasks: TaskSourceSchema,
  heldout: z
    .strictObject({
      source: TaskSourceSchema,
      every: z
        .number()
        .int()
        .positive()
        .default(5)
        .describe('Evaluate every N explorer steps (and at the start and end).'),
      size: z.number().int().positive().optional(),
    })
    .optional(),
  selector: z.strictObject({ type: z.string().min(1), params: Params }).prefault({ type: 'random' }),
  explorer: z.strictObject({
    model: ModelConfigSchema,
    workflow: z.enum(['single_turn', 'multi_turn']).default('single_turn'),
    reward: z
      .unknown()
      .default('math')
      .describe(
        "A reward name ('math', 'exact_match'), { name, params } or { module, export } (see docs/rewards.md).",
      ),
    repeat: z.number().int().positive().default(8).describe('Rollouts per task (the GRPO group size).'),
    batchTasks: z.number().int().positive().default(32).describe('Tasks per explorer step.'),
    maxTokens: z.number().int().positive().default(8),
    temperature: z.number().min(0).default(1),
    concurrency: z.number().int().positive().default(8),
    timeoutMs: z.number().int().positive().default(60_000),
    retries: z.number().int().nonnegative().default(2),
    backoffMs: z.number().int().nonnegative().default(200),
    faults: FaultsSchema,
  }),
  experienceOps: z.array(z.unknown()).default([{ op: 'invalid_reward' }, { op: 'grpo' }]),
  buffer: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'The experience buffer: table, discipline, params, keepGroups, capacity… (see docs/buffer.md).',
    ),
  sampling: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'The trainer’s sample strategy: default, staleness, mix, and an optional replayRatio (see docs/buffer.md).',
    ),
  trainer: z
    .strictObject({ type: z.string().min(1).default('policy_gradient'), params: Params })
    .prefault({}),
  lifecycle: z
    .strictObject({
      mode: z.enum(['sync', 'async', 'explore', 'train']).default('sync'),
      steps: z.number().int().positive().default(20),
      syncInterval: z.number().int().positive().default(1).describe('Explorer steps between weight syncs.'),
      syncOffset: z
        .number()
        .int()
        .min(0)
        .max(1)
        .default(0)
        .describe('1 = one-step off-policy: train on the previous step while exploring the next.'),
      maxStaleness: z
        .number()
        .int()
        .nonnegative()
        .default(1)
        .describe('async: how many versions the explorer may run ahead of the trainer.'),
      trainBatch: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Experiences per training step (default: one explorer step worth).'),
      checkpointEvery: z.number().int().positive().default(5),
      annotate: z
        .strictObject({
          feature: z.string().min(1).default('pass_rate'),
          repeat: z.number().int().positive().default(8),
        })
        .optional()
        .describe('explore mode: write each task’s pass rate back to the task table as a feature.'),
    })
    .prefault({}),
  report: z.strictObject({ html: z.boolean().default(true) }).prefault({}),
});
export type RftConfig = z.output<typeof RftConfigSchema>;
