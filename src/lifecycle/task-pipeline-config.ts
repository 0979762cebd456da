import { z } from 'zod';
import { FieldMappingSchema } from '../io/mapping.ts';

export const INPUT_FORMATS = ['jsonl', 'json', 'csv', 'parquet', 'arrow'] as const;

/** A task-set pipeline: read raw files, map fields to tasks, run the operator graph, land tasks in LanceDB. */
export const TaskPipelineConfigSchema = z.strictObject({
  name: z.string().min(1).describe('Name of the pipeline (recorded with each run).'),
  kind: z.literal('tasks').default('tasks'),
  description: z.string().optional(),
  seed: z
    .number()
    .int()
    .default(0)
    .describe('Seed for every random choice of the run (augmentation, MinHash).'),
  db: z
    .string()
    .optional()
    .describe('Database folder, relative to the config file (default ./.winnow/db; --db overrides).'),
  input: z.strictObject({
    path: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe('File(s) relative to the config file.'),
    format: z.enum(INPUT_FORMATS).optional().describe('Overrides detection by file extension.'),
    batchSize: z.number().int().positive().max(1_000_000).default(8192),
    csv: z
      .strictObject({
        delimiter: z.string().length(1).optional(),
        header: z.boolean().optional(),
      })
      .optional(),
  }),
  mapping: FieldMappingSchema,
  steps: z.array(z.unknown()).default([]).describe('The operator graph (see docs/operators.md).'),
  output: z
    .strictObject({
      table: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/)
        .default('tasks'),
      rejectedTable: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/)
        .default('rejected'),
      commitRows: z
        .number()
        .int()
        .positive()
        .default(50_000)
        .describe('Tasks per LanceDB commit (large commits, few versions).'),
      compact: z.boolean().default(true).describe('Merge small fragments after the run.'),
    })
    .prefault({}),
});
export type TaskPipelineConfig = z.output<typeof TaskPipelineConfigSchema>;
