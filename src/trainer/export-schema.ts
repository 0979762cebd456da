import {
  Field,
  Float32,
  Float64,
  Int8,
  Int32,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';

/**
 * The row layout of exported training batches (one Parquet file per batch), for trainers outside
 * Node. Per-token lists (logprobs, advantages, action_mask) cover the response tokens only,
 * i.e. tokens[prompt_length:], so they all have the same length in a row.
 */
const list = (type: Int32 | Float32 | Int8) => new List(new Field('item', type, false));

export const EXPORT_SCHEMA = new Schema([
  new Field('id', new Utf8(), false),
  new Field('task_id', new Utf8(), false),
  new Field('taskset', new Utf8(), false),
  new Field('group_id', new Utf8(), false),
  new Field('run_index', new Int32(), false),
  new Field('model_version', new Int32(), false),
  new Field('explore_step', new Int32(), false),
  new Field('batch_version', new Int32(), false),
  new Field('prompt', new Utf8(), true),
  new Field('response', new Utf8(), false),
  new Field('tokens', list(new Int32()), false),
  new Field('prompt_length', new Int32(), false),
  new Field('logprobs', list(new Float32()), false),
  new Field('advantages', list(new Float32()), false),
  new Field('action_mask', list(new Int8()), false),
  new Field('advantage', new Float32(), false),
  new Field('reward', new Float64(), false),
  new Field('truncated', new Int8(), false),
]);

/** One exported row, before it becomes Arrow columns. */
export interface ExportRow {
  id: string;
  task_id: string;
  taskset: string;
  group_id: string;
  run_index: number;
  model_version: number;
  explore_step: number;
  batch_version: number;
  prompt: string | null;
  response: string;
  tokens: number[];
  prompt_length: number;
  logprobs: number[];
  advantages: number[];
  action_mask: number[];
  advantage: number;
  reward: number;
  truncated: number;
}

/** Response-aligned values from an array given per response token or per token of the whole sequence. */
function toResponse(values: readonly number[], total: number, promptLength: number, what: string): number[] {
  const resp = total - promptLength;
  if (values.length === resp) return [...values];
  if (values.length === total) return values.slice(promptLength);
  throw new DataError({
    message: `${what} has ${values.length} entries; expected ${resp} (response tokens) or ${total} (all tokens)`,
  });
}

/**
 * Normalise one experience to the export layout: logprobs stay empty when the rollout model gave
 * none; action_mask defaults to all ones; advantages are expanded from the scalar when absent.
 */
export function exportRow(e: Experience, batchVersion: number): ExportRow {
  const total = e.tokens.length;
  const pl = total === 0 ? 0 : e.promptLength;
  if (pl > total) {
    throw new DataError({ message: `experience ${e.id}: promptLength ${pl} exceeds tokens.length ${total}` });
  }
  const resp = total - pl;
  const label = `experience ${e.id}`;
  const logprobs = e.logprobs.length === 0 ? [] : toResponse(e.logprobs, total, pl, `${label}: logprobs`);
  const actionMask =
    e.actionMask.length === 0
      ? new Array<number>(resp).fill(1)
      : toResponse(e.actionMask, total, pl, `${label}: actionMask`);
  const advantages =
    e.advantages === undefined
      ? new Array<number>(resp).fill(e.advantage)
      : toResponse(e.advantages, total, pl, `${label}: advantages`);
  return {
    id: e.id,
    task_id: e.taskId,
    taskset: e.taskset,
    group_id: e.groupId,
    run_index: e.runIndex,
    model_version: e.modelVersion,
    explore_step: e.exploreStep,
    batch_version: batchVersion,
    prompt: e.prompt ?? (e.messages !== undefined ? JSON.stringify(e.messages) : null),
    response: e.response,
    tokens: [...e.tokens],
    prompt_length: pl,
    logprobs,
    advantages,
    action_mask: actionMask,
    advantage: e.advantage,
    reward: e.reward,
    truncated: e.truncated ? 1 : 0,
  };
}

/** Build the Arrow table of a batch in EXPORT_SCHEMA (exact field types and nullability). */
export function exportTable(rows: readonly ExportRow[]): Table {
  const children = EXPORT_SCHEMA.fields.map((field) => {
    const name = field.name as keyof ExportRow;
    return vectorFromArray(
      rows.map((r) => r[name]),
      field.type,
    ).data[0]!;
  });
  const data = makeData({
    type: new Struct(EXPORT_SCHEMA.fields),
    length: rows.length,
    nullCount: 0,
    children,
  });
  return new Table([new RecordBatch(EXPORT_SCHEMA, data)]);
}
