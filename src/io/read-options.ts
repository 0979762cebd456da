import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { DEFAULT_MAX_DEPTH } from './json-depth.ts';

export const DATASET_FORMATS = ['jsonl', 'json', 'csv', 'parquet', 'arrow'] as const;

export const CsvOptionsSchema = z
  .object({
    /** One ASCII character; default `,` (tab for `.tsv`). */
    delimiter: z
      .string()
      .length(1)
      .refine((d) => d.charCodeAt(0) < 128 && d !== '"' && d !== '\n' && d !== '\r', {
        message: 'must be one ASCII character other than a quote or a line break',
      })
      .optional(),
    /** The first record names the columns (default true); otherwise columns are col1, col2, … */
    header: z.boolean().default(true),
    /** Lossless number/boolean inference for cell text (default true). */
    inferTypes: z.boolean().default(true),
  })
  .strict();

export const ReadOptionsSchema = z
  .object({
    /** Overrides detection by extension. */
    format: z.enum(DATASET_FORMATS).optional(),
    /** Records per yielded batch (the last batch may be smaller). */
    batchSize: z.number().int().positive().default(8192),
    csv: CsvOptionsSchema.default({ header: true, inferTypes: true }),
    /** Longest accepted line / record / array element in bytes; longer ones are rejected. */
    maxLineBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /** Deepest accepted JSON nesting; deeper rows are rejected (they would overflow recursive code downstream). */
    maxDepth: z.number().int().positive().default(DEFAULT_MAX_DEPTH),
    /** JSON only: read the array under this top-level key, e.g. `data` for `{"data": [...]}`. */
    jsonPath: z.string().min(1).optional(),
  })
  .strict();

export type ReadOptions = z.input<typeof ReadOptionsSchema>;
export type ResolvedReadOptions = z.output<typeof ReadOptionsSchema>;

/** Validate reader options; a bad value throws a ConfigError naming `<path>.<key>`. */
export function parseReadOptions(opts: unknown, path = 'read'): ResolvedReadOptions {
  const parsed = ReadOptionsSchema.safeParse(opts ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = [path, ...issue.path.map(String)].filter(Boolean).join('.');
  throw new ConfigError({ path: where, message: issue.message });
}
