import { z } from 'zod';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { taskContentId } from '../core/ids.ts';
import { truncatePayload } from '../core/rejected.ts';
import { type JsonValue, type Message, MessageSchema, type Task, TaskSchema } from '../core/task.ts';
import { bigintToJs } from './arrow-values.ts';
import { compilePath, type FieldGetter, MISSING, RowMappingError } from './field-path.ts';
import { jsonSafe } from './jsonl-writer.ts';
import {
  answerGetter,
  columnUse,
  describe,
  getField as get,
  promptGetter,
  type RequiredColumn,
  type TextGetter,
} from './mapping-refs.ts';
import type { RawBatch, RawRecord, ReadRejection } from './raw-record.ts';
import { compileTemplate } from './template.ts';

/** A column name or dotted path; a trailing `?` marks it optional (rows without it keep going). */
const ColumnRef = z.string().min(1);
/** The object form names the column exactly (also a name that ends in `?`). */
const ColumnSpec = z.strictObject({
  column: z.string().min(1),
  optional: z.boolean().default(false).describe('Rows without the column keep going without this key.'),
});
const ColumnOrSpec = z.union([ColumnRef, ColumnSpec]);
const TemplateRef = z.object({ template: z.string().min(1) }).strict();
const PromptColumnSpec = z.strictObject({
  column: z.string().min(1),
  coerce: z
    .literal('string')
    .optional()
    .describe('Accept numbers and booleans as their text (by default a prompt must be text).'),
  allowEmpty: z.boolean().default(false).describe('Keep rows whose prompt is empty or only whitespace.'),
});
const PromptTemplateRef = z.strictObject({
  template: z.string().min(1),
  allowEmpty: z.boolean().default(false).describe('Keep rows whose prompt renders empty.'),
});
const MessageTemplateSchema = z.object({ role: MessageSchema.shape.role, content: z.string() }).strict();

/**
 * How raw columns become a Task. Column references are names or dotted paths into nested fields
 * (`hint?` marks one optional); `{ template }` builds text from several fields. Every required
 * column is checked against the first batch of each file before a run writes anything. See
 * docs/io.md for the full syntax.
 */
export const FieldMappingSchema = z
  .object({
    /** Literal name of the task set every row goes to. */
    taskset: z.string().min(1),
    /** Column holding a stable id; absent → a content hash of prompt/messages/answer. */
    id: ColumnOrSpec.optional().describe('Column of a stable id (text or integer); absent → a content hash.'),
    /** Text column (numbers are rejected unless `coerce: string`; empty prompts are rejected) or a template. */
    prompt: z
      .union([ColumnRef, PromptColumnSpec, PromptTemplateRef])
      .optional()
      .describe(
        'Non-empty text column, { column, coerce: string, allowEmpty }, or { template }; see docs/io.md.',
      ),
    /** Reference answer: text, a number or boolean (kept as its text), or a template. */
    answer: z
      .union([ColumnRef, ColumnSpec, TemplateRef])
      .optional()
      .describe('Column (text or number; `name?` optional) or { template }.'),
    /** A column holding `[{role, content}]`, or a list of turns whose `content` is a template. */
    messages: z.union([ColumnRef, z.array(MessageTemplateSchema).min(1)]).optional(),
    /** feature name → numeric column (numeric text is parsed). */
    features: z.record(z.string().min(1), ColumnOrSpec).default({}),
    /** meta key → column, a list of columns (kept under their own names), or `*` for every unmapped column. */
    meta: z
      .union([z.literal('*'), z.array(ColumnRef), z.record(z.string().min(1), ColumnOrSpec)])
      .default({}),
  })
  .strict()
  .refine((m) => m.prompt !== undefined || m.messages !== undefined, {
    message: 'a mapping needs prompt or messages',
    path: ['prompt'],
  })
  .refine((m) => typeof m.prompt !== 'string' || !m.prompt.endsWith('?'), {
    message: 'the prompt cannot be optional (a task needs one); name the column without a trailing ?',
    path: ['prompt'],
  });
export type FieldMapping = z.output<typeof FieldMappingSchema>;
export type FieldMappingInput = z.input<typeof FieldMappingSchema>;

export type MapResult = { task: Task } | { error: string };

/** Validate a mapping config; a bad value throws a ConfigError at `<path>.<key>`. */
export function parseFieldMapping(input: unknown, path = 'mapping'): FieldMapping {
  const parsed = FieldMappingSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError({ path: [path, ...issue.path.map(String)].join('.'), message: issue.message });
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Raw values → JSON for `meta`: BigInt → number/text, typed arrays → arrays, Dates → ISO text, NaN → null. */
function toJson(v: unknown, depth = 0): JsonValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'bigint':
      return bigintToJs(v);
    case 'object':
      break;
    default:
      return String(v);
  }
  if (depth > 256) throw new RowMappingError('meta: value nested too deeply');
  if (Array.isArray(v)) return v.map((x) => toJson(x, depth + 1));
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    return Array.from(v as unknown as ArrayLike<unknown>, (x) => toJson(x, depth + 1));
  }
  if (v instanceof Date) return v.toISOString();
  const out: Record<string, JsonValue> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toJson(x, depth + 1);
  return out;
}

const ROLES = MessageSchema.shape.role.options;

function messagesFromColumn(v: unknown, column: string): Message[] {
  const what = `messages: column '${column}'`;
  if (!Array.isArray(v))
    throw new RowMappingError(`${what} holds ${describe(v)}, expected a list of {role, content}`);
  if (v.length === 0) throw new RowMappingError(`${what} holds an empty list`);
  return v.map((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      throw new RowMappingError(`${what} item ${i}: expected {role, content}, got ${describe(m)}`);
    }
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw new RowMappingError(
        `${what} item ${i}: role ${describe(role)} is not one of ${ROLES.join(', ')}`,
      );
    }
    if (typeof content !== 'string') {
      throw new RowMappingError(`${what} item ${i}: content holds ${describe(content)}, expected text`);
    }
    return { role: role as Message['role'], content };
  });
}

/** The top-level column a reference reads (the name itself, and for dotted paths its first segment). */
function topLevelNames(ref: string): string[] {
  const dot = ref.indexOf('.');
  return dot === -1 ? [ref] : [ref, ref.slice(0, dot)];
}

export interface CompileMappingOptions {
  /** Config path reported in ConfigErrors (default `mapping`). */
  path?: string;
  /**
   * Re-check every task with TaskSchema (about 3 µs a row). Off by default: `map` builds tasks
   * valid by construction (every value is type-checked as it is read), and the tests check that
   * TaskSchema accepts whatever `map` returns.
   */
  validate?: boolean;
}

/**
 * A mapping compiled once (templates parsed, getters built) so mapping a row is a few lookups.
 * `map` never throws for bad rows: it returns `{ error }` with a reason naming the mapping key
 * and the column.
 */
export class CompiledMapping {
  readonly mapping: FieldMapping;
  /** Columns and template fields every row must have (checked against each file's first batch). */
  readonly required: readonly RequiredColumn[];
  private readonly id: { column: string; optional: boolean; get: FieldGetter } | undefined;
  private readonly prompt: TextGetter | undefined;
  private readonly answer: TextGetter | undefined;
  private readonly messages: ((f: Record<string, unknown>) => Message[]) | undefined;
  private readonly features: Array<{ name: string; column: string; optional: boolean; get: FieldGetter }>;
  private readonly meta: Array<{ key: string; column: string; optional: boolean; get: FieldGetter }>;
  /** For `meta: '*'`: columns already used by other keys. */
  private readonly used: Set<string> | undefined;
  private readonly validate: boolean;

  constructor(input: FieldMappingInput | FieldMapping, opts: CompileMappingOptions = {}) {
    const path = opts.path ?? 'mapping';
    this.validate = opts.validate ?? false;
    const m = parseFieldMapping(input, path);
    this.mapping = m;
    const refs: string[] = [];
    const required: RequiredColumn[] = [];
    const use = (key: string, ref: string | { column: string; optional?: boolean }) => {
      const u = columnUse(ref);
      refs.push(u.column);
      if (!u.optional) required.push({ key, column: u.column });
      return u;
    };
    const useTemplate = (key: string, template: string) => {
      const t = compileTemplate(template, `${path}.${key}`);
      refs.push(...t.fields);
      for (const column of t.requiredFields) required.push({ key, column, template });
    };
    if (m.id !== undefined) {
      const u = use('id', m.id);
      this.id = { ...u, get: compilePath(u.column) };
    }
    if (m.prompt !== undefined) {
      this.prompt = promptGetter(m.prompt, path);
      if (typeof m.prompt !== 'string' && 'template' in m.prompt)
        useTemplate('prompt.template', m.prompt.template);
      else use('prompt', { column: typeof m.prompt === 'string' ? m.prompt : m.prompt.column });
    }
    if (m.answer !== undefined) {
      this.answer = answerGetter(m.answer, path);
      if (typeof m.answer !== 'string' && 'template' in m.answer)
        useTemplate('answer.template', m.answer.template);
      else use('answer', m.answer);
    }
    const msgs = m.messages;
    if (typeof msgs === 'string') {
      const g = compilePath(msgs);
      this.messages = (f) => messagesFromColumn(get(g, f, 'messages', msgs), msgs);
      use('messages', { column: msgs });
    } else if (msgs !== undefined) {
      const turns = msgs.map((t, i) => {
        useTemplate(`messages[${i}].content`, t.content);
        return { role: t.role, content: compileTemplate(t.content, `${path}.messages[${i}].content`) };
      });
      this.messages = (f) =>
        turns.map((t, i) => {
          try {
            return { role: t.role, content: t.content.render(f) };
          } catch (err) {
            if (err instanceof RowMappingError) throw new RowMappingError(`messages[${i}]: ${err.message}`);
            throw err;
          }
        });
    }
    this.features = Object.entries(m.features).map(([name, ref]) => {
      const u = use(`features.${name}`, ref);
      return { name, ...u, get: compilePath(u.column) };
    });
    if (m.meta === '*') {
      this.meta = [];
      this.used = new Set(refs.flatMap(topLevelNames));
    } else {
      const pairs = Array.isArray(m.meta)
        ? m.meta.map((c, i) => [columnUse(c).column, c, `meta[${i}]`] as const)
        : Object.entries(m.meta).map(([k, c]) => [k, c, `meta.${k}`] as const);
      this.meta = pairs.map(([key, ref, configKey]) => {
        const u = use(configKey, ref);
        return { key, ...u, get: compilePath(u.column) };
      });
    }
    this.required = required;
  }

  map(record: RawRecord): MapResult {
    const f = record.fields;
    try {
      const task: Record<string, unknown> = { id: '', taskset: this.mapping.taskset };
      if (this.prompt) task.prompt = this.prompt(f);
      if (this.messages) task.messages = this.messages(f);
      if (this.answer) {
        const answer = this.answer(f);
        if (answer !== undefined) task.answer = answer;
      }
      task.id = this.idOf(f, task);
      const features: Record<string, number> = {};
      for (const { name, column, optional, get: g } of this.features) {
        if (optional && g(f) === MISSING) continue;
        const v = get(g, f, `features.${name}`, column);
        const n = toNumber(v);
        if (n === undefined) {
          throw new RowMappingError(
            `features.${name}: column '${column}' holds ${describe(v)}, expected a number`,
          );
        }
        features[name] = n;
      }
      task.features = features;
      task.meta = this.metaOf(f);
      const { file, row } = record.source;
      if (!Number.isInteger(row) || row < 0)
        throw new RowMappingError(`source row ${row} is not a row number`);
      task.source = { file, row };
      if (!this.validate) return { task: task as Task };
      const parsed = TaskSchema.safeParse(task);
      if (!parsed.success) {
        return {
          error: parsed.error.issues.map((i) => `${i.path.join('.') || 'task'}: ${i.message}`).join('; '),
        };
      }
      return { task: parsed.data };
    } catch (err) {
      if (err instanceof RowMappingError) return { error: err.message };
      if (err instanceof RangeError) return { error: 'row is nested too deeply to map' };
      return { error: `cannot map row: ${errorMessage(err)}` };
    }
  }

  private idOf(f: Record<string, unknown>, task: Record<string, unknown>): string {
    const id = this.id;
    if (id === undefined || (id.optional && id.get(f) === MISSING)) {
      return taskContentId(task as { prompt?: string; messages?: unknown; answer?: string });
    }
    const v = get(id.get, f, 'id', id.column);
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v === 'bigint') return v.toString();
    throw new RowMappingError(
      `id: column '${id.column}' holds ${describe(v)}, expected non-empty text or an integer`,
    );
  }

  private metaOf(f: Record<string, unknown>): Record<string, JsonValue> {
    const meta: Record<string, JsonValue> = {};
    if (this.used !== undefined) {
      for (const key of Object.keys(f)) if (!this.used.has(key)) meta[key] = toJson(f[key]);
      return meta;
    }
    for (const { key, column, optional, get: g } of this.meta) {
      if (optional && g(f) === MISSING) continue;
      meta[key] = toJson(get(g, f, `meta.${key}`, column));
    }
    return meta;
  }
}

const compiledCache = new WeakMap<object, CompiledMapping>();

/** Compile a mapping config (validated; a bad config throws a ConfigError at `path`). */
export function compileMapping(
  mapping: FieldMappingInput | FieldMapping,
  opts: CompileMappingOptions = {},
): CompiledMapping {
  return new CompiledMapping(mapping, opts);
}

/** Map one raw record to a Task, or say why it cannot be. Plain configs are compiled once and cached. */
export function mapRecord(record: RawRecord, mapping: CompiledMapping | FieldMappingInput): MapResult {
  if (mapping instanceof CompiledMapping) return mapping.map(record);
  let compiled = compiledCache.get(mapping);
  if (compiled === undefined) {
    compiled = new CompiledMapping(mapping);
    compiledCache.set(mapping, compiled);
  }
  return compiled.map(record);
}

function payloadOf(fields: Record<string, unknown>): string {
  try {
    return truncatePayload(JSON.stringify(fields, jsonSafe));
  } catch {
    return '';
  }
}

/**
 * Map a batch: the tasks that mapped, and a rejection (step `map` by default, with the row's source
 * and its fields as JSON) for each record that did not. The reader's own rejections are passed through.
 */
export function mapBatch(
  batch: RawBatch,
  mapping: CompiledMapping | FieldMappingInput,
  step = 'map',
): { tasks: Task[]; rejected: ReadRejection[] } {
  const compiled = mapping instanceof CompiledMapping ? mapping : compileMapping(mapping);
  const tasks: Task[] = [];
  const rejected: ReadRejection[] = [...batch.rejected];
  for (const record of batch.records) {
    const r = compiled.map(record);
    if ('task' in r) tasks.push(r.task);
    else {
      rejected.push({
        step,
        file: record.source.file,
        row: record.source.row,
        reason: r.error,
        payload: payloadOf(record.fields),
      });
    }
  }
  return { tasks, rejected };
}
