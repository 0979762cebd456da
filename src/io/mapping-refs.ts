import { columnsOf, compilePath, type FieldGetter, MISSING, RowMappingError } from './field-path.ts';
import { type CompiledTemplate, compileTemplate } from './template.ts';

/** A column a mapping key reads, and whether rows may lack it. */
export interface ColumnUse {
  column: string;
  optional: boolean;
}

/** `hint?` → optional `hint`; the object form names the column exactly. */
export function columnUse(ref: string | { column: string; optional?: boolean }): ColumnUse {
  if (typeof ref !== 'string') return { column: ref.column, optional: ref.optional ?? false };
  if (ref.length > 1 && ref.endsWith('?')) return { column: ref.slice(0, -1), optional: true };
  return { column: ref, optional: false };
}

/** A column (or template field) every row of a file must have: what the first-batch check looks for. */
export interface RequiredColumn {
  /** Mapping key as the config spells it, e.g. `prompt`, `features.level`, `messages[0].content`. */
  key: string;
  column: string;
  /** Set when the column is a placeholder of this template. */
  template?: string;
}

/** A value shown in a reason: short text quoted, others as they print. */
export function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

/** Read a field; a missing one is the row's rejection reason, naming the key and the row's columns. */
export function getField(
  getter: FieldGetter,
  f: Record<string, unknown>,
  what: string,
  column: string,
): unknown {
  const v = getter(f);
  if (v === MISSING) {
    const kind = column.includes('.') ? 'field' : 'column';
    throw new RowMappingError(`${what}: missing ${kind} '${column}' (${columnsOf(f)})`);
  }
  return v;
}

/** Returns undefined when an optional column is absent. */
export type TextGetter = (f: Record<string, unknown>) => string | undefined;

function renderer(t: CompiledTemplate, what: string): (f: Record<string, unknown>) => string {
  return (f) => {
    try {
      return t.render(f);
    } catch (err) {
      if (err instanceof RowMappingError) throw new RowMappingError(`${what}: ${err.message}`);
      throw err;
    }
  };
}

type AnswerRef = string | { column: string; optional?: boolean } | { template: string };

/** The answer: text, or a number/boolean kept as its text (reference answers are often numbers). */
export function answerGetter(ref: AnswerRef, configPath: string): TextGetter {
  if (typeof ref !== 'string' && 'template' in ref)
    return renderer(compileTemplate(ref.template, `${configPath}.answer.template`), 'answer');
  const { column, optional } = columnUse(ref);
  const g = compilePath(column);
  return (f) => {
    if (optional && g(f) === MISSING) return undefined;
    const v = getField(g, f, 'answer', column);
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    throw new RowMappingError(`answer: column '${column}' holds ${describe(v)}, expected text`);
  };
}

type PromptRef =
  | string
  | { column: string; coerce?: 'string' | undefined; allowEmpty?: boolean }
  | { template: string; allowEmpty?: boolean };

/**
 * The prompt must be non-empty text: a number is rejected unless the mapping says `coerce: string`
 * (a file whose questions are numbers is almost always mis-mapped), and an empty or whitespace-only
 * prompt is rejected unless `allowEmpty`.
 */
export function promptGetter(ref: PromptRef, configPath: string): (f: Record<string, unknown>) => string {
  const allowEmpty = typeof ref !== 'string' && ref.allowEmpty === true;
  if (typeof ref !== 'string' && 'template' in ref) {
    const t = compileTemplate(ref.template, `${configPath}.prompt.template`);
    const render = renderer(t, 'prompt');
    return (f) => {
      const s = render(f);
      if (!allowEmpty && s.trim() === '')
        throw new RowMappingError(`empty prompt (template ${JSON.stringify(t.source)})`);
      return s;
    };
  }
  const column = typeof ref === 'string' ? ref : ref.column;
  const coerce = typeof ref !== 'string' && ref.coerce === 'string';
  const g = compilePath(column);
  return (f) => {
    const v = getField(g, f, 'prompt', column);
    let s: string;
    if (typeof v === 'string') s = v;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') {
      if (!coerce) {
        const kind = typeof v === 'boolean' ? 'a boolean' : 'a number';
        throw new RowMappingError(
          `prompt: column '${column}' holds ${kind} (${String(v)}), expected text (coerce: string accepts it)`,
        );
      }
      s = String(v);
    } else throw new RowMappingError(`prompt: column '${column}' holds ${describe(v)}, expected text`);
    if (!allowEmpty && s.trim() === '') throw new RowMappingError(`empty prompt (column '${column}')`);
    return s;
  };
}
