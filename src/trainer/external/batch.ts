import { Field, Float32, Float64, Int8, Int32, List, Schema, type Table, Utf8 } from 'apache-arrow';
import { z } from 'zod';
import { actionLogprobs, behaviourLogprob } from '../../buffer/sequence-stats.ts';
import { DataError } from '../../core/errors.ts';
import type { Experience } from '../../core/experience.ts';
import { alignTokenArrays } from '../../core/token-alignment.ts';
import { rowsToTable } from '../../export/arrow-build.ts';
import { tableToIpcStream } from '../../io/arrow-ipc.ts';
import type { BatchEncoding } from './protocol.ts';

/**
 * The columns of a training batch sent to an external trainer (docs/trainers.md). Per-token lists
 * (`logprobs`, `action_mask`, `advantages`) cover the RESPONSE tokens, `tokens[prompt_length:]`:
 * one entry each. `logprobs` is empty when the server sent none; `action_mask` and `advantages`
 * are always filled (all ones; the scalar advantage repeated) so a trainer never guesses.
 * Only int8/int32/float32/float64/utf8 and lists of them: simple enough to read by hand.
 */
const list = (type: Int32 | Float32 | Int8) => new List(new Field('item', type, false));

export const TRAIN_BATCH_SCHEMA = new Schema([
  new Field('id', new Utf8(), false),
  new Field('task_id', new Utf8(), false),
  new Field('group_id', new Utf8(), false),
  new Field('run_index', new Int32(), false),
  new Field('model_version', new Int32(), false),
  new Field('explore_step', new Int32(), false),
  new Field('prompt', new Utf8(), false),
  new Field('response', new Utf8(), false),
  new Field('tokens', list(new Int32()), false),
  new Field('prompt_length', new Int32(), false),
  new Field('logprobs', list(new Float32()), false),
  new Field('action_mask', list(new Int8()), false),
  new Field('advantages', list(new Float32()), false),
  new Field('advantage', new Float32(), false),
  new Field('reward', new Float64(), false),
  new Field('expert', new Int8(), false),
  new Field('truncated', new Int8(), false),
  new Field('use_count', new Int32(), false),
  new Field('off_policy', new Int8(), false),
  new Field('behavior_logprob', new Float64(), false),
]);

const int8 = z.number().int().min(0).max(1);
/** JSON writes NaN and ±Infinity as null. */
const float = z.number().nullable();

/**
 * One row of a training batch: the JSON encoding writes exactly these objects, the Arrow encoding
 * these columns. The last three carry the off-policy correction (issue 42): `use_count` is the
 * delivery this batch makes (1 = first use), `off_policy` is 1 for a replayed row (`use_count > 1`:
 * the policy has changed since it was generated), `behavior_logprob` = Σ `logprobs` over the
 * action tokens (NaN/null without logprobs) — the denominator of a sequence-level ratio. Trainers
 * correct per token with `logprobs` (docs/trainers.md, "Off-policy rows").
 */
export const TrainBatchRowSchema = z.strictObject({
  id: z.string().min(1),
  task_id: z.string(),
  group_id: z.string(),
  run_index: z.number().int(),
  model_version: z.number().int(),
  explore_step: z.number().int(),
  prompt: z.string(),
  response: z.string(),
  tokens: z.array(z.number().int()),
  prompt_length: z.number().int().nonnegative(),
  logprobs: z.array(z.number()),
  action_mask: z.array(int8),
  advantages: z.array(z.number()),
  advantage: z.number(),
  reward: float,
  expert: int8,
  truncated: int8,
  use_count: z.number().int().nonnegative(),
  off_policy: int8,
  behavior_logprob: float,
});
/** A row as Winnow builds it (numbers, NaN allowed); the schema reads its JSON form. */
export type TrainBatchRow = Omit<z.output<typeof TrainBatchRowSchema>, 'reward' | 'behavior_logprob'> & {
  reward: number;
  behavior_logprob: number;
};

/** One experience as a batch row; a per-token array that fits no layout fails naming the experience. */
export function trainBatchRow(e: Experience): TrainBatchRow {
  const aligned = alignTokenArrays(e);
  if (typeof aligned === 'string')
    throw new DataError({ message: `experience ${e.id} cannot be sent to the trainer: ${aligned}` });
  const pl = Math.min(e.promptLength, e.tokens.length);
  const responseLength = e.tokens.length - pl;
  const actionMask =
    aligned.actionMask.length > 0 ? aligned.actionMask : new Array<number>(responseLength).fill(1);
  return {
    id: e.id,
    task_id: e.taskId,
    group_id: e.groupId,
    run_index: e.runIndex,
    model_version: e.modelVersion,
    explore_step: e.exploreStep,
    prompt: e.prompt ?? (e.messages !== undefined ? JSON.stringify(e.messages) : ''),
    response: e.response,
    tokens: [...e.tokens],
    prompt_length: pl,
    logprobs: aligned.logprobs,
    action_mask: actionMask,
    advantages: aligned.advantages ?? new Array<number>(responseLength).fill(e.advantage),
    advantage: e.advantage,
    reward: e.reward,
    expert: e.expert ? 1 : 0,
    truncated: e.truncated ? 1 : 0,
    use_count: e.useCount,
    off_policy: e.useCount > 1 ? 1 : 0,
    behavior_logprob: behaviourLogprob(actionLogprobs(aligned.logprobs, actionMask)),
  };
}

/** The rows as an Arrow table in TRAIN_BATCH_SCHEMA (exact types, no nulls). */
export function trainBatchTable(rows: readonly TrainBatchRow[]): Table {
  return rowsToTable(
    TRAIN_BATCH_SCHEMA.fields,
    rows as unknown as readonly Record<string, unknown>[],
    (i) => {
      return `experience ${rows[i]!.id}`;
    },
  );
}

/** The JSON encoding: `{ "format": "winnow-batch/1", "rows": [...] }`; NaN and ±Infinity become null. */
export function trainBatchJson(rows: readonly TrainBatchRow[]): string {
  return JSON.stringify({ format: 'winnow-batch/1', rows }, (_k, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? null : v,
  );
}

/** The bytes of a batch file in `encoding`. */
export function encodeTrainBatch(batch: readonly Experience[], encoding: BatchEncoding): Uint8Array {
  const rows = batch.map(trainBatchRow);
  if (encoding === 'json') return new TextEncoder().encode(trainBatchJson(rows));
  return tableToIpcStream(trainBatchTable(rows));
}
