import type { z } from 'zod';
import { explainIssues } from './config-explain.ts';
import { ConfigError } from './errors.ts';

/** `steps[2].params.min` from a zod/yaml path array. */
export function formatPath(path: readonly PropertyKey[], base = ''): string {
  let out = base;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Validate `value` against `schema`; on failure throw a ConfigError naming the config path of the
 * cause, what was expected and a hint (nearest key or name, new spelling of a renamed key).
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  value: unknown,
  opts: { path?: string; file?: string } = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // An empty file parses to null: say so, and what it needs, not "expected an object".
  if (opts.file && !opts.path && (value === null || value === undefined))
    throw emptyFileError(schema, opts.file);
  const issues = result.error.issues;
  const e = explainIssues(schema, value, issues, opts.path ?? '');
  const more = issues.length > 1 ? ` (${issues.length - 1} more problem(s) after this one)` : '';
  throw new ConfigError({
    path: formatPath(e.path, opts.path ?? ''),
    message: `${e.message}${more}`,
    ...(e.hint ? { hint: e.hint } : {}),
    ...(opts.file ? { file: opts.file } : {}),
  });
}

/** The top-level keys an object schema cannot do without (none known: an empty list). */
function requiredKeys(schema: z.ZodType): string[] {
  const def = (schema as { _zod?: { def?: { type?: string; shape?: Record<string, z.ZodType> } } })._zod?.def;
  if (def?.type !== 'object' || !def.shape) return [];
  return Object.entries(def.shape)
    .filter(([, s]) => !s.safeParse(undefined).success)
    .map(([k]) => k);
}

function emptyFileError(schema: z.ZodType, file: string): ConfigError {
  const keys = requiredKeys(schema);
  const needs =
    keys.length > 0 ? `it needs at least the keys ${keys.join(', ')}` : 'it needs a mapping of keys';
  return new ConfigError({
    path: '',
    file,
    message: `the file is empty; ${needs} (see \`winnow schema\`)`,
  });
}
