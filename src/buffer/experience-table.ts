import * as arrow from 'apache-arrow';
import type { Experience } from '../core/experience.ts';
import type { JsonObject } from '../core/task.ts';
import { type ColumnSpec, schemaOf } from './arrow-codec.ts';
import { encodeRowsFast } from './experience-arrow.ts';
import { JSON_EXTENSION, MESSAGES_TYPE, TIMESTAMP_MS } from './typed-columns.ts';

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
