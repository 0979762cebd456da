import * as arrow from 'apache-arrow';
import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { JsonObject, Message } from '../core/task.ts';
import { type ColumnSpec, schemaOf } from './arrow-codec.ts';
import { type BadCell, describeBadRow, parseJsonCell } from './bad-cell.ts';
import { encodeRowsFast } from './experience-arrow.ts';
import {
  BAD_TIME,
  JSON_EXTENSION,
  MESSAGES_TYPE,
  plainNested,
  TIMESTAMP_MS,
  timeReader,
} from './typed-columns.ts';

/**
 * An experience as stored: the Experience plus the buffer's bookkeeping. `seq` is the insertion
 * sequence (strictly increasing per table; FIFO/LIFO order and the key every bookkeeping update
 * matches on). `lastUsedStep` is the train step of the last acknowledged use (−1: never); it is
 * also the watermark that makes replaying the use journal idempotent.
 */
export interface StoredExperience {
  exp: Experience;
  seq: number;
  useCount: number;
  priority: number;
  lastUsedStep: number;
  lastUsedAt: number;
  consumed: boolean;
}

const utf8 = new arrow.Utf8();
const i32 = new arrow.Int32();
const f64 = new arrow.Float64();
const bool = new arrow.Bool();
const listOf = (t: arrow.DataType) => new arrow.List(new arrow.Field('item', t, true));

/**
 * Columns of an experience table (snake_case). Chat messages are `list<struct<role, content>>`,
 * `info` is JSON (Arrow's JSON extension type: one fixed schema per table, whatever a workflow puts
 * there) and times are UTC timestamps. Tables written before this layout keep theirs
 * (`fitColumns`).
 */
export const EXPERIENCE_COLUMNS: ColumnSpec<StoredExperience>[] = [
  { name: 'id', type: utf8, get: (r) => r.exp.id },
  { name: 'task_id', type: utf8, get: (r) => r.exp.taskId },
  { name: 'taskset', type: utf8, get: (r) => r.exp.taskset },
  { name: 'group_id', type: utf8, get: (r) => r.exp.groupId },
  { name: 'run_index', type: i32, get: (r) => r.exp.runIndex },
  { name: 'step_index', type: i32, get: (r) => r.exp.stepIndex },
  { name: 'model_version', type: i32, get: (r) => r.exp.modelVersion },
  { name: 'explore_step', type: i32, get: (r) => r.exp.exploreStep },
  { name: 'prompt', type: utf8, nullable: true, get: (r) => r.exp.prompt ?? null },
  { name: 'messages', type: MESSAGES_TYPE, nullable: true, get: (r) => r.exp.messages ?? null },
  { name: 'response', type: utf8, get: (r) => r.exp.response },
  { name: 'tokens', type: listOf(i32), get: (r) => r.exp.tokens },
  { name: 'logprobs', type: listOf(new arrow.Float32()), get: (r) => r.exp.logprobs },
  { name: 'action_mask', type: listOf(new arrow.Uint8()), get: (r) => r.exp.actionMask },
  { name: 'prompt_length', type: i32, get: (r) => r.exp.promptLength },
  { name: 'reward', type: f64, get: (r) => r.exp.reward },
  { name: 'advantage', type: f64, get: (r) => r.exp.advantage },
  {
    name: 'advantages',
    type: listOf(new arrow.Float32()),
    nullable: true,
    get: (r) => r.exp.advantages ?? null,
  },
  { name: 'truncated', type: bool, get: (r) => r.exp.truncated },
  { name: 'info', type: utf8, metadata: JSON_EXTENSION, get: (r) => infoText(r.exp.info) },
  { name: 'use_count', type: i32, get: (r) => r.useCount },
  { name: 'priority', type: f64, get: (r) => r.priority },
  { name: 'created_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.exp.createdAt },
  { name: 'expert', type: bool, get: (r) => r.exp.expert },
  { name: 'seq', type: f64, get: (r) => r.seq },
  { name: 'last_used_step', type: i32, get: (r) => r.lastUsedStep },
  { name: 'last_used_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.lastUsedAt },
  { name: 'consumed', type: bool, get: (r) => r.consumed },
  { name: 'payload_flags', type: i32, get: (r) => payloadFlags(r.exp) },
];

/** `info` as JSON text; most rows have none, and a plain `{}` needs no stringify. */
export function infoText(info: JsonObject | undefined): string {
  if (info === undefined) return '{}';
  const proto = Object.getPrototypeOf(info);
  if (proto !== Object.prototype && proto !== null) return JSON.stringify(info);
  for (const _ in info) return JSON.stringify(info);
  return '{}';
}

/**
 * Which optional payload columns a row actually uses, so `sample` reads a column only when one of
 * the chosen rows needs it (each column read costs a random access per row).
 */
export const PAYLOAD_FLAG = {
  prompt: 1,
  messages: 2,
  advantages: 4,
  /** `info` is not `{}`. */
  info: 8,
  /** `action_mask` is not the standard one (1 for every response token). */
  actionMask: 16,
} as const;

export function payloadFlags(e: Experience): number {
  let f = 0;
  if (e.prompt !== undefined) f |= PAYLOAD_FLAG.prompt;
  if (e.messages !== undefined) f |= PAYLOAD_FLAG.messages;
  if (e.advantages !== undefined) f |= PAYLOAD_FLAG.advantages;
  for (const _ in e.info) {
    f |= PAYLOAD_FLAG.info;
    break;
  }
  if (!isStandardMask(e.actionMask, e.tokens.length, e.promptLength)) f |= PAYLOAD_FLAG.actionMask;
  return f;
}

/** The standard mask trains on every response token: ones over `tokens.slice(promptLength)`. */
function isStandardMask(mask: readonly number[], n: number, promptLength: number): boolean {
  if (mask.length !== n - promptLength) return false;
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 1) return false;
  return true;
}

function standardMask(n: number, promptLength: number): number[] {
  return new Array<number>(Math.max(0, n - promptLength)).fill(1);
}

/** A stored mask in the response layout; rows written before the one layout hold one entry per token. */
function storedMask(mask: number[], n: number, promptLength: number): number[] {
  return mask.length === n && n > promptLength ? mask.slice(promptLength) : mask;
}

export const EXPERIENCE_SCHEMA = schemaOf(EXPERIENCE_COLUMNS);

/** The columns the in-memory index is rebuilt from on open (everything but the large payload). */
export const BOOKKEEPING_COLUMNS = [
  'id',
  'task_id',
  'taskset',
  'group_id',
  'run_index',
  'step_index',
  'model_version',
  'explore_step',
  'prompt_length',
  'reward',
  'advantage',
  'truncated',
  'created_at',
  'expert',
  'seq',
  'use_count',
  'priority',
  'last_used_step',
  'last_used_at',
  'consumed',
  'payload_flags',
] as const;

/** The columns an acknowledged-use fold rewrites (matched on `seq`). */
export const FOLD_COLUMNS: ColumnSpec<StoredExperience>[] = EXPERIENCE_COLUMNS.filter((c) =>
  ['seq', 'use_count', 'priority', 'last_used_step', 'last_used_at', 'consumed'].includes(c.name),
);

/**
 * The columns `sample` reads from LanceDB for the rows it returns: the large ones. The small
 * scalars and keys are already in the in-memory index; each column left out saves a random read
 * per row (2–6 ms per column for 256 random rows of a 1M-row table on our machines). The optional
 * ones are read only when a chosen row's `payload_flags` says it has something there.
 */
export const PAYLOAD_COLUMNS = [
  'prompt',
  'messages',
  'response',
  'tokens',
  'logprobs',
  'action_mask',
  'advantages',
  'info',
] as const;

/** The payload columns rows with these (OR-ed) flags need. */
export function payloadColumns(flags: number): string[] {
  const cols = ['response', 'tokens', 'logprobs'];
  if (flags & PAYLOAD_FLAG.prompt) cols.push('prompt');
  if (flags & PAYLOAD_FLAG.messages) cols.push('messages');
  if (flags & PAYLOAD_FLAG.advantages) cols.push('advantages');
  if (flags & PAYLOAD_FLAG.info) cols.push('info');
  if (flags & PAYLOAD_FLAG.actionMask) cols.push('action_mask');
  return cols;
}

/** What the in-memory index supplies to complete a payload row (every field not in PAYLOAD_COLUMNS). */
export type RowIdentity = Omit<
  Experience,
  'prompt' | 'messages' | 'response' | 'tokens' | 'logprobs' | 'actionMask' | 'advantages' | 'info'
>;

export function encodeExperiences(
  rows: readonly StoredExperience[],
  columns: readonly ColumnSpec<StoredExperience>[] = EXPERIENCE_COLUMNS,
): arrow.Table {
  return encodeRowsFast(rows, columns);
}

/**
 * Parse a JSON payload cell (`info`, `messages`) of a row another tool may have written. A bad cell
 * goes to `bad` when the caller collects them (the row is then left out); otherwise it is a
 * one-line DataError naming the table, row and column, never a bare SyntaxError.
 */
function jsonPayload<T>(
  text: unknown,
  where: { table: string; id: string; column: string },
  bad: BadCell[] | undefined,
  check: (v: unknown) => boolean,
  expected: string,
): { ok: true; value: T } | { ok: false } {
  // Typed cells (chat turns) arrive as Arrow values; JSON and older tables' text cells as text.
  const parsed =
    typeof text === 'string' ? parseJsonCell(text) : { ok: true as const, value: plainNested(text) };
  const reason = !parsed.ok ? parsed.reason : check(parsed.value) ? null : `expected ${expected}`;
  if (reason === null && parsed.ok) return { ok: true, value: parsed.value as T };
  const cell: BadCell = { ...where, reason: reason ?? 'unreadable' };
  if (!bad) throw new DataError({ message: describeBadRow([cell]) });
  bad.push(cell);
  return { ok: false };
}

/** False (and the cells recorded, or a one-line DataError without `bad`) when a time cell is NaN (timeReader). */
function timeCells(
  at: (column: string) => { table: string; id: string; column: string },
  bad: BadCell[] | undefined,
  times: Record<string, number>,
): boolean {
  const cells: BadCell[] = [];
  for (const [column, ms] of Object.entries(times))
    if (Number.isNaN(ms)) cells.push({ ...at(column), reason: BAD_TIME });
  if (cells.length === 0) return true;
  if (!bad) throw new DataError({ message: describeBadRow(cells) });
  bad.push(...cells);
  return false;
}

const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Row i of a List<number> column as a plain array (reads the Arrow buffers directly). */
function listReader(vec: arrow.Vector | null): (i: number) => number[] | null {
  if (!vec) return () => null;
  const chunks = vec.data;
  const starts: number[] = [];
  let acc = 0;
  for (const d of chunks) {
    starts.push(acc);
    acc += d.length;
  }
  return (i) => {
    let k = chunks.length - 1;
    while (k > 0 && starts[k]! > i) k--;
    const d = chunks[k]!;
    const j = i - starts[k]!;
    if (!d.getValid(j)) return null;
    const off = d.valueOffsets as Int32Array;
    const child = d.children[0]!;
    const values = child.values as ArrayLike<number>;
    const a = off[d.offset + j]! + child.offset;
    const b = off[d.offset + j + 1]! + child.offset;
    const out = new Array<number>(b - a);
    for (let x = a; x < b; x++) out[x - a] = values[x]!;
    return out;
  };
}

/**
 * Decode rows fetched with (some of) `PAYLOAD_COLUMNS` + `_rowid`, completing each from the index
 * via `identity(rowId)`. Columns not fetched take their empty value (no prompt/messages/advantages,
 * `{}` info, the standard action mask). Returns rows keyed by row id.
 */
export function decodePayloads(
  table: arrow.Table,
  identity: (rowId: number) => RowIdentity,
  tableName = 'experiences',
): Map<number, Experience> {
  const col = (name: string) => table.getChild(name);
  const rowIds = col('_rowid');
  const tokens = listReader(col('tokens'));
  const logprobs = listReader(col('logprobs'));
  const actionMask = listReader(col('action_mask'));
  const advantages = listReader(col('advantages'));
  const c = {
    prompt: col('prompt'),
    messages: col('messages'),
    response: col('response'),
    info: col('info'),
  };
  const out = new Map<number, Experience>();
  for (let i = 0; i < table.numRows; i++) {
    const rowId = Number(rowIds?.get(i));
    const known = identity(rowId);
    const at = (column: string) => ({ table: tableName, id: known.id, column });
    const info = jsonPayload<JsonObject>(
      c.info?.get(i) ?? '{}',
      at('info'),
      undefined,
      isObject,
      'a JSON object',
    );
    const exp: Experience = {
      ...known,
      response: String(c.response?.get(i) ?? ''),
      tokens: tokens(i) ?? [],
      logprobs: logprobs(i) ?? [],
      actionMask: [],
      info: info.ok ? info.value : {},
    };
    const mask = actionMask(i);
    exp.actionMask = mask
      ? storedMask(mask, exp.tokens.length, exp.promptLength)
      : standardMask(exp.tokens.length, exp.promptLength);
    const prompt = c.prompt?.get(i);
    if (prompt !== null && prompt !== undefined) exp.prompt = String(prompt);
    const messages = c.messages?.get(i);
    if (messages !== null && messages !== undefined) {
      const m = jsonPayload<Message[]>(messages, at('messages'), undefined, Array.isArray, 'a JSON array');
      if (m.ok) exp.messages = m.value;
    }
    const adv = advantages(i);
    if (adv) exp.advantages = adv;
    out.set(rowId, exp);
  }
  return out;
}

/**
 * Decode stored rows (any subset of rows, all columns) back into experiences plus bookkeeping.
 * With `bad`, a row whose `info`/`messages` cell is malformed is left out and its cell recorded
 * there; without it such a row is a one-line DataError.
 */
export function decodeExperiences(
  table: arrow.Table,
  opts: { bad?: BadCell[]; tableName?: string } = {},
): StoredExperience[] {
  const col = (name: string) => table.getChild(name);
  const c = {
    id: col('id'),
    taskId: col('task_id'),
    taskset: col('taskset'),
    groupId: col('group_id'),
    runIndex: col('run_index'),
    stepIndex: col('step_index'),
    modelVersion: col('model_version'),
    exploreStep: col('explore_step'),
    prompt: col('prompt'),
    messages: col('messages'),
    response: col('response'),
    tokens: col('tokens'),
    logprobs: col('logprobs'),
    actionMask: col('action_mask'),
    promptLength: col('prompt_length'),
    reward: col('reward'),
    advantage: col('advantage'),
    advantages: col('advantages'),
    truncated: col('truncated'),
    info: col('info'),
    useCount: col('use_count'),
    priority: col('priority'),
    createdAt: col('created_at'),
    expert: col('expert'),
    seq: col('seq'),
    lastUsedStep: col('last_used_step'),
    lastUsedAt: col('last_used_at'),
    consumed: col('consumed'),
  };
  const tokens = listReader(c.tokens);
  const logprobs = listReader(c.logprobs);
  const actionMask = listReader(c.actionMask);
  const advantagesOf = listReader(c.advantages);
  const createdAt = timeReader(c.createdAt);
  const lastUsedAt = timeReader(c.lastUsedAt);
  const out: StoredExperience[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const id = String(c.id?.get(i));
    const at = (column: string) => ({ table: opts.tableName ?? 'experiences', id, column });
    const info = jsonPayload<JsonObject>(
      c.info?.get(i) ?? '{}',
      at('info'),
      opts.bad,
      isObject,
      'a JSON object',
    );
    const rawMessages = c.messages?.get(i);
    const messages =
      rawMessages === null || rawMessages === undefined
        ? null
        : jsonPayload<Message[]>(rawMessages, at('messages'), opts.bad, Array.isArray, 'a JSON array');
    const created = createdAt(i) ?? 0;
    const lastAt = lastUsedAt(i) ?? 0;
    const times =
      !(Number.isNaN(created) || Number.isNaN(lastAt)) ||
      timeCells(at, opts.bad, { created_at: created, last_used_at: lastAt });
    if (!info.ok || messages?.ok === false || !times) continue;
    const exp: Experience = {
      id,
      taskId: String(c.taskId?.get(i)),
      taskset: String(c.taskset?.get(i)),
      groupId: String(c.groupId?.get(i)),
      runIndex: Number(c.runIndex?.get(i) ?? 0),
      stepIndex: Number(c.stepIndex?.get(i) ?? 0),
      modelVersion: Number(c.modelVersion?.get(i) ?? 0),
      exploreStep: Number(c.exploreStep?.get(i) ?? 0),
      response: String(c.response?.get(i) ?? ''),
      tokens: tokens(i) ?? [],
      logprobs: logprobs(i) ?? [],
      actionMask: [],
      promptLength: Number(c.promptLength?.get(i) ?? 0),
      reward: Number(c.reward?.get(i) ?? Number.NaN),
      advantage: Number(c.advantage?.get(i) ?? 0),
      truncated: Boolean(c.truncated?.get(i)),
      info: info.value,
      useCount: Number(c.useCount?.get(i) ?? 0),
      priority: Number(c.priority?.get(i) ?? 0),
      createdAt: created,
      expert: Boolean(c.expert?.get(i)),
    };
    exp.actionMask = storedMask(actionMask(i) ?? [], exp.tokens.length, exp.promptLength);
    const prompt = c.prompt?.get(i);
    if (prompt !== null && prompt !== undefined) exp.prompt = String(prompt);
    if (messages?.ok) exp.messages = messages.value;
    const advantages = advantagesOf(i);
    if (advantages) exp.advantages = advantages;
    out.push({
      exp,
      seq: Number(c.seq?.get(i) ?? -1),
      useCount: exp.useCount,
      priority: exp.priority,
      lastUsedStep: Number(c.lastUsedStep?.get(i) ?? -1),
      lastUsedAt: lastAt,
      consumed: Boolean(c.consumed?.get(i)),
    });
  }
  return out;
}
