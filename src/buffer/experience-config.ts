import { z } from 'zod';

/**
 * Configuration of one experience buffer (`buffer:` in a run config). The discipline's own
 * parameters are validated by the discipline's schema (see `src/buffer/replay/`).
 */
export const ExperienceBufferConfigSchema = z.strictObject({
  table: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('experiences')
    .describe('LanceDB table holding the experiences; its use journal is `<table>_uses`.'),
  discipline: z
    .string()
    .default('fifo')
    .describe('Read discipline: fifo, lifo, priority, prioritized, uniform.'),
  params: z.record(z.string(), z.unknown()).default({}).describe("The discipline's parameters."),
  keepGroups: z
    .boolean()
    .default(false)
    .describe('Sample whole GRPO groups (a batch never splits a group; it may come back short).'),
  capacity: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Maximum stored experiences; beyond it the discipline evicts (null = unbounded).'),
  seed: z.number().int().default(0).describe('Seeds every random choice (sampling, priority noise).'),
  compactEvery: z
    .number()
    .int()
    .positive()
    .default(20)
    .describe('Commits between automatic compactions (fold use counts, merge fragments, drop old versions).'),
  retainVersionsSeconds: z
    .number()
    .nonnegative()
    .default(60)
    .describe('Table versions younger than this survive compaction (for concurrent readers).'),
  foldRows: z
    .number()
    .int()
    .positive()
    .default(50_000)
    .describe('Fold acknowledged uses into the table once this many rows wait, even between compactions.'),
  runId: z.string().default('').describe('Recorded with every skipped or evicted row.'),
  rejectedTable: z.string().default('rejected'),
});
export type ExperienceBufferConfig = z.output<typeof ExperienceBufferConfigSchema>;
export type ExperienceBufferConfigInput = z.input<typeof ExperienceBufferConfigSchema>;
