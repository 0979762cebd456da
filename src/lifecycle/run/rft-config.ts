import { z } from 'zod';
import { ExperienceBufferConfigSchema } from '../../buffer/experience-config.ts';
import { pluginSlotSchema } from '../../core/plugin.ts';
import { FieldMappingSchema } from '../../io/mapping.ts';
import { ReadOptionsSchema } from '../../io/read-options.ts';
import { WeightSyncConfigSchema } from '../../models/weight-sync/config.ts';
import { operatorListSchema } from '../../operators/graph-spec.ts';
import { PredicateSchema } from '../../operators/predicate.ts';
import { StorageOptionsSchema } from '../../store/storage-options.ts';
import { evaluationConfigSchema } from './evaluation/evaluation-config.ts';
import { defaultRegistries, type RunRegistries } from './run-registries.ts';

/** Where tasks come from: a dataset file (read and mapped on the fly) or a task table in the database. */
export const TaskSourceSchema = z.union([
  z.strictObject({
    path: z.string().min(1).describe('Dataset file, relative to the config file.'),
    mapping: FieldMappingSchema,
    filter: PredicateSchema.optional().describe(
      'Keep only tasks matching this predicate, e.g. { field: features.difficulty, lte: 0.4 }.',
    ),
    limit: z.number().int().positive().optional(),
    read: ReadOptionsSchema.omit({ batchSize: true })
      .optional()
      .describe('Reader options (format, csv, jsonPath, maxLineBytes, maxDepth); see docs/io.md.'),
  }),
  z.strictObject({
    table: z.string().min(1).describe('A task table in the database (e.g. tasks).'),
    taskset: z.string().min(1).optional(),
    version: z.union([z.number().int(), z.string()]).optional(),
    filter: PredicateSchema.optional(),
    limit: z.number().int().positive().optional(),
  }),
]);
export type TaskSource = z.output<typeof TaskSourceSchema>;

const FaultsSchema = z
  .strictObject({
    errorRate: z.number().min(0).max(1).default(0),
    timeoutRate: z.number().min(0).max(1).default(0),
    emptyRate: z.number().min(0).max(1).default(0),
    nanRewardRate: z.number().min(0).max(1).default(0),
  })
  .optional()
  .describe('Fault injection for testing (share of rollout groups that fail in each way).');

const BUFFER = ExperienceBufferConfigSchema.shape;

export const LIFECYCLE_MODES = ['sync', 'async', 'explore', 'train', 'bench'] as const;

/**
 * The RFT run config, built from the registries: every plug-in slot is a discriminated union over
 * the registered names (with each entry's own params schema) or a user module, so one parse checks
 * the whole config — selector, buffer sampler, sample strategy, model, workflow, reward, experience
 * operators, trainer and monitors — before anything is built or written.
 */
export function rftConfigSchema(reg: RunRegistries = defaultRegistries()) {
  return z.strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . and - only (it names folders and tables)')
      .describe('Names the run: run ids are <name>-<n>.'),
    kind: z.literal('rft'),
    description: z.string().optional(),
    seed: z.number().int().default(0),
    db: z
      .string()
      .optional()
      .describe('Database folder, relative to the config file (default ./.winnow/db).'),
    storageOptions: StorageOptionsSchema.optional(),
    runsDir: z
      .string()
      .optional()
      .describe(
        'Folder holding one folder per run, relative to the config file (default: .winnow/runs in the project folder).',
      ),
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
    evaluation: evaluationConfigSchema(TaskSourceSchema)
      .optional()
      .describe('Evaluation sets with k samples per task: mean@k and pass@k over steps (docs/lifecycle.md).'),
    selector: pluginSlotSchema(reg.selectors).prefault('random'),
    explorer: z.strictObject({
      model: pluginSlotSchema(reg.models),
      workflow: pluginSlotSchema(reg.workflows).prefault('single_turn'),
      reward: pluginSlotSchema(reg.rewards).prefault('math'),
      rewardKey: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Task meta key whose value names a registered reward for that task (else `reward`); checked before the run.',
        ),
      workflowKey: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Task meta key whose value names a registered workflow for that task (else `workflow`); checked before the run.',
        ),
      repeat: z.number().int().positive().default(8).describe('Rollouts per task (the GRPO group size).'),
      batchTasks: z.number().int().positive().default(32).describe('Tasks per explorer step.'),
      extraGroups: z
        .number()
        .int()
        .nonnegative()
        .default(0)
        .describe('Extra tasks rolled out per step, so a refilling group filter can keep batchTasks groups.'),
      stages: z
        .array(pluginSlotSchema(reg.stages, { modules: false }))
        .default([])
        .describe(
          'Pre-rollout stages in front of the selector, e.g. [{ type: greso }] (docs/selection-zoo.md).',
        ),
      maxTokens: z.number().int().positive().default(8),
      temperature: z.number().min(0).default(1),
      concurrency: z.number().int().positive().default(8),
      timeoutMs: z.number().int().positive().default(60_000),
      retries: z.number().int().nonnegative().default(2),
      backoffMs: z.number().int().nonnegative().default(200),
      faults: FaultsSchema,
      weightSync: WeightSyncConfigSchema.optional().describe(
        'Load each new trainer checkpoint on the model server and route the next requests to it: vllm_lora, command or http (docs/trainers.md).',
      ),
    }),
    experienceOps: operatorListSchema(reg.experienceOps)
      .prefault([{ op: 'invalid_reward' }, { op: 'grpo' }])
      .describe('Experience operators run on every step’s rollouts (docs/experience-operators.md).'),
    buffer: z
      .strictObject({
        sampler: pluginSlotSchema(reg.samplers)
          .prefault('fifo')
          .describe('Which stored experiences a sample returns.'),
        remover: pluginSlotSchema(reg.removers)
          .optional()
          .describe(
            "Which rows leave beyond capacity: oldest, lowest_priority (default: the sampler's choice).",
          ),
        // The storage settings are the buffer's own (src/buffer/experience-config.ts).
        rateLimiter: BUFFER.rateLimiter,
        keepGroups: BUFFER.keepGroups,
        capacity: BUFFER.capacity,
        compactEvery: BUFFER.compactEvery,
        retainVersionsSeconds: BUFFER.retainVersionsSeconds,
        foldRows: BUFFER.foldRows,
        table: z
          .string()
          .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
          .optional()
          .describe(
            'Default <run id>_experiences. Name one only to train (mode: train) from an earlier run’s table.',
          ),
      })
      .prefault({})
      .describe('The experience buffer: storage, sampler, rate limiter (docs/buffer.md).'),
    sampling: pluginSlotSchema(reg.strategies)
      .prefault('default')
      .describe('The trainer’s sample strategy: default, staleness, mix (docs/buffer.md).'),
    trainer: pluginSlotSchema(reg.trainers).prefault('policy_gradient'),
    lifecycle: z
      .strictObject({
        mode: z.enum(LIFECYCLE_MODES).default('sync'),
        steps: z.number().int().positive().default(20).describe('Explorer steps in the run.'),
        syncInterval: z.number().int().positive().default(1).describe('Explorer steps between weight syncs.'),
        syncOffset: z
          .number()
          .int()
          .min(0)
          .max(1)
          .default(0)
          .describe('1 = one-step off-policy: train on the previous step while exploring the next.'),
        maxExploreAhead: z
          .number()
          .int()
          .nonnegative()
          .default(1)
          .describe(
            'async: how many steps the explorer may run ahead of the trainer (today the async loops do not overlap; see docs/lifecycle.md).',
          ),
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
        benchCheckpoints: z
          .string()
          .optional()
          .describe(
            'bench mode: a run’s checkpoints folder (relative to the config file); each step-N is evaluated.',
          ),
      })
      .prefault({}),
    monitors: z
      .array(pluginSlotSchema(reg.monitors))
      .prefault(['html_report'])
      .describe('What watches the run: html_report, metrics_csv, or a user module.'),
  });
}

export const RftConfigSchema = rftConfigSchema();
export type RftConfig = z.output<typeof RftConfigSchema>;
export type RftConfigInput = z.input<typeof RftConfigSchema>;
