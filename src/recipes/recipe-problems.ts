import type { z } from 'zod';
import { formatPath, parseConfig } from '../core/config.ts';
import { explainIssues } from '../core/config-explain.ts';
import { ConfigError } from '../core/errors.ts';

/** One reason a recipe cannot run as it is. */
export interface RecipeProblem {
  path: string;
  message: string;
  hint?: string;
}

/**
 * Collects every blocker of a recipe (each operator, each parameter, the dataset, the export
 * path), so that one refusal names them all instead of the first only. One problem is thrown as
 * it was found; several become one ConfigError listing each on its own line.
 */
export class RecipeProblems {
  readonly list: RecipeProblem[] = [];
  private readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Run a check; a ConfigError it throws is recorded (undefined returned), anything else propagates. */
  attempt<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      if (err instanceof RecipeRefusedError) {
        this.list.push(...err.problems);
        return undefined;
      }
      this.list.push({
        path: err.path,
        message: stripWhere(err),
        ...(err.hint !== undefined ? { hint: err.hint } : {}),
      });
      return undefined;
    }
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    if (this.list.length === 1) {
      const p = this.list[0]!;
      throw new ConfigError({
        path: p.path,
        file: this.file,
        message: p.message,
        ...(p.hint ? { hint: p.hint } : {}),
      });
    }
    throw new RecipeRefusedError(this.file, this.list);
  }
}

/**
 * A recipe with several blockers: one line (the CLI prints every error as one) numbering each,
 * `(1) path: why (hint); (2) …`; `problems` keeps them apart for tables and JSON.
 */
export class RecipeRefusedError extends ConfigError {
  readonly problems: readonly RecipeProblem[];
  constructor(file: string, problems: readonly RecipeProblem[]) {
    const items = problems.map((p, i) => `(${i + 1}) ${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
    super({
      path: '',
      file,
      message: `${problems.length} problems; nothing was run or written: ${items.join('; ')}`,
    });
    this.problems = problems;
  }
}

/**
 * parseConfig for a part of a recipe, naming **every** issue (parseConfig names the first and
 * counts the rest): several issues are thrown as one RecipeRefusedError, which `attempt` spreads
 * into the list.
 */
export function parseRecipePart<S extends z.ZodType>(
  schema: S,
  value: unknown,
  o: { path?: string; file: string },
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  if (issues.length === 1 || value === null || value === undefined) return parseConfig(schema, value, o);
  const base = o.path ?? '';
  const problems = issues.map((issue) => {
    const e = explainIssues(schema, value, [issue], base);
    return { path: formatPath(e.path, base), message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
  });
  throw new RecipeRefusedError(o.file, problems);
}

/** The message of a ConfigError without the "file: path: " prefix its constructor added. */
function stripWhere(err: ConfigError): string {
  const where = err.file ? (err.path ? `${err.file}: ${err.path}` : err.file) : err.path || '<root>';
  const prefix = `${where}: `;
  let m = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  if (err.hint && m.endsWith(` (${err.hint})`)) m = m.slice(0, -(err.hint.length + 3));
  return m;
}
