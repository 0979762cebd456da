import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { ReplayRatioSchema } from './rate-limiter.ts';

const PartSchema = (what: string, defaultType?: string) =>
  z.strictObject({
    type: defaultType === undefined ? z.string().min(1) : z.string().min(1).default(defaultType),
    params: z.record(z.string(), z.unknown()).default({}).describe(`The ${what}'s parameters (camelCase).`),
  });

/** Where skipped, removed and quarantined rows are recorded unless a config names another table. */
export const DEFAULT_REJECTED_TABLE = 'rejected';

/**
 * Configuration of one experience buffer (`buffer:` in a run config): a storage table, a sampler
 * (which rows a sample returns), a remover (which rows leave beyond `capacity`) and an optional
 * rate limiter (samples per insert). Each part's own parameters are validated by its definition's
 * schema (src/buffer/samplers/, src/buffer/removers/).
 */
export const ExperienceBufferConfigSchema = z.strictObject({
  table: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('experiences')
    .describe('LanceDB table holding the experiences; its use journal is `<table>_uses`.'),
  sampler: PartSchema('sampler', 'fifo')
    .default({ type: 'fifo', params: {} })
    .describe('Sampler: fifo, lifo, uniform, version_priority, advantage_priority (or a registered one).'),
  remover: PartSchema('remover')
    .optional()
    .describe("Which rows leave beyond capacity: oldest, lowest_priority (default: the sampler's choice)."),
  rateLimiter: ReplayRatioSchema.optional().describe(
    'Reverb-style samples-per-insert limiter owned by the table (state saved with checkpoints).',
  ),
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
    .describe('Maximum stored experiences; beyond it the remover removes rows (null = unbounded).'),
  seed: z.number().int().default(0).describe('Seeds every random choice (sampling, priority noise).'),
  compactEvery: z
    .number()
    .int()
    .positive()
    .default(20)
    .describe('Commits between automatic compactions (merge fragments, drop old versions).'),
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
  randomStream: z
    .string()
    .optional()
    .describe(
      'Names the random stream samples draw from (default: the table). A run names it after the role, so its draws do not depend on its id.',
    ),
  runId: z.string().default('').describe('Recorded with every skipped, removed or quarantined row.'),
  rejectedTable: z.string().default(DEFAULT_REJECTED_TABLE),
});
export type ExperienceBufferConfig = z.output<typeof ExperienceBufferConfigSchema>;
export type ExperienceBufferConfigInput = z.input<typeof ExperienceBufferConfigSchema>;

/** Sampler names that were renamed (read disciplines before issue #10). */
const RENAMED_SAMPLERS: Record<string, string> = {
  priority: 'version_priority',
  prioritized: 'advantage_priority',
};

/**
 * Parse a buffer config, refusing the spellings of the read-discipline era with the new one in
 * the hint (`discipline`/`params` at buffer level, the sampler names `priority`/`prioritized`).
 */
export function parseBufferConfig(
  value: unknown,
  where: { path: string; file?: string | undefined },
): ExperienceBufferConfig {
  const file = where.file ? { file: where.file } : {};
  const raw = (value ?? {}) as Record<string, unknown>;
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    if ('discipline' in raw) {
      const old = String(raw.discipline);
      const type = RENAMED_SAMPLERS[old] ?? old;
      throw new ConfigError({
        path: `${where.path}.discipline`,
        ...file,
        message: 'renamed',
        hint: `use sampler: { type: ${type}${'params' in raw ? ', params: {…}' : ''} }`,
      });
    }
    if ('params' in raw)
      throw new ConfigError({
        path: `${where.path}.params`,
        ...file,
        message: 'renamed',
        hint: 'the parameters belong to the sampler: use sampler: { type, params: {…} }',
      });
    const sampler = raw.sampler as { type?: unknown } | undefined;
    const renamed = typeof sampler?.type === 'string' ? RENAMED_SAMPLERS[sampler.type] : undefined;
    if (renamed)
      throw new ConfigError({
        path: `${where.path}.sampler.type`,
        ...file,
        message: `sampler '${String(sampler?.type)}' was renamed`,
        hint: `renamed: use sampler: { type: ${renamed} }`,
      });
  }
  return parseConfig(ExperienceBufferConfigSchema, value ?? {}, { path: where.path, ...file });
}
