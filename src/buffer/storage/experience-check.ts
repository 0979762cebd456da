import { DataError } from '../../core/errors.ts';
import {
  type Experience,
  type ExperienceInput,
  INT32_MAX,
  MAX_TIME_MS,
  outsideTimeRange,
} from '../../core/experience.ts';
import { layoutProblem } from '../../core/token-alignment.ts';

/**
 * Validate and complete one experience on its way into the buffer. This is the same contract as
 * `ExperienceSchema` (same fields, same defaults), checked by hand: a zod parse costs ~15 µs per
 * experience with 64-token arrays, which alone would eat a third of the 20k experiences/s budget.
 * `tests/buffer/experience-check.test.ts` keeps the two in agreement.
 */
export function checkExperience(
  e: ExperienceInput,
  row: number,
  where = 'buffer.write',
  align = true,
): Experience {
  if (e === null || typeof e !== 'object') fail(e, row, where, 'the row', 'an object', e);
  // Helpers are module functions, not closures made per row: this runs for every experience written.
  const out: Experience = {
    id: str(e, 'id', row, where),
    taskId: str(e, 'taskId', row, where),
    taskset: str(e, 'taskset', row, where),
    groupId: str(e, 'groupId', row, where),
    runIndex: int(e, 'runIndex', undefined, row, where),
    stepIndex: int(e, 'stepIndex', 0, row, where),
    modelVersion: int(e, 'modelVersion', undefined, row, where),
    exploreStep: int(e, 'exploreStep', undefined, row, where),
    response:
      typeof e.response === 'string' ? e.response : fail(e, row, where, 'response', 'a string', e.response),
    tokens: list(e, 'tokens', e.tokens, 'integer', row, where),
    logprobs: list(e, 'logprobs', e.logprobs, 'number', row, where),
    actionMask: list(e, 'actionMask', e.actionMask, 'bit', row, where),
    promptLength: int(e, 'promptLength', 0, row, where),
    reward:
      typeof e.reward === 'number'
        ? e.reward
        : fail(e, row, where, 'reward', 'a number (NaN allowed)', e.reward),
    advantage: num(e, 'advantage', row, where),
    truncated:
      e.truncated === undefined
        ? false
        : typeof e.truncated === 'boolean'
          ? e.truncated
          : fail(e, row, where, 'truncated', 'a boolean', e.truncated),
    info:
      e.info === undefined
        ? {}
        : isPlainObject(e.info)
          ? e.info
          : fail(e, row, where, 'info', 'a JSON object', e.info),
    useCount: int(e, 'useCount', 0, row, where),
    priority: num(e, 'priority', row, where),
    createdAt: time(e, row, where),
    expert:
      e.expert === undefined
        ? false
        : typeof e.expert === 'boolean'
          ? e.expert
          : fail(e, row, where, 'expert', 'a boolean', e.expert),
  };
  if (e.prompt !== undefined)
    out.prompt =
      typeof e.prompt === 'string' ? e.prompt : fail(e, row, where, 'prompt', 'a string', e.prompt);
  if (e.messages !== undefined) {
    if (!Array.isArray(e.messages)) fail(e, row, where, 'messages', 'an array of chat messages', e.messages);
    e.messages.forEach((m, i) => {
      if (!isPlainObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string')
        fail(e, row, where, `messages[${i}]`, 'a { role, content } message', m);
      if (!['system', 'user', 'assistant', 'tool'].includes(m.role))
        fail(e, row, where, `messages[${i}].role`, "one of 'system', 'user', 'assistant', 'tool'", m.role);
    });
    out.messages = e.messages;
  }
  if (e.advantages !== undefined) out.advantages = list(e, 'advantages', e.advantages, 'number', row, where);
  if (out.promptLength > out.tokens.length && out.tokens.length > 0)
    fail(e, row, where, 'promptLength', `at most tokens.length (${out.tokens.length})`, out.promptLength);
  // Per-token arrays are stored in the one layout (response tokens); an all-tokens mask is converted.
  // `out` is ours: fix its arrays in place (alignTokenArrays would copy the row and every array).
  // `align: false` (the buffer's write path) checks the lengths but leaves an all-tokens array as
  // given: its encoder skips the prompt part while copying (experience-encoder.ts, `responseFrom`),
  // which saves two array copies a row that would live until the row's commit.
  const total = out.tokens.length;
  const pl = Math.min(out.promptLength, total);
  out.logprobs = aligned(out, 'logprobs', out.logprobs, total, pl, row, where, align);
  out.actionMask = aligned(out, 'actionMask', out.actionMask, total, pl, row, where, align);
  if (out.advantages !== undefined)
    out.advantages = aligned(out, 'advantages', out.advantages, total, pl, row, where, align);
  return out;
}

function fail(
  e: ExperienceInput,
  row: number,
  where: string,
  field: string,
  expected: string,
  got: unknown,
): never {
  const id = typeof e?.id === 'string' ? ` (id ${e.id})` : '';
  throw new DataError({
    file: where,
    row,
    message: `experience${id}: ${field} must be ${expected}, got ${describe(got)}`,
  });
}

function str(
  e: ExperienceInput,
  k: 'id' | 'taskId' | 'taskset' | 'groupId',
  row: number,
  where: string,
): string {
  const v = e[k];
  if (typeof v !== 'string' || v.length === 0) fail(e, row, where, k, 'a non-empty string', v);
  return v as string;
}

function int(
  e: ExperienceInput,
  k: 'runIndex' | 'stepIndex' | 'modelVersion' | 'exploreStep' | 'promptLength' | 'useCount',
  def: number | undefined,
  row: number,
  where: string,
): number {
  const v = e[k] ?? def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT32_MAX)
    fail(e, row, where, k, 'a non-negative integer below 2^31', v);
  return v as number;
}

/** A number field whose default is 0. */
function num(
  e: ExperienceInput,
  k: 'advantage' | 'priority' | 'createdAt',
  row: number,
  where: string,
): number {
  const v = e[k] ?? 0;
  if (typeof v !== 'number') fail(e, row, where, k, 'a number', v);
  return v as number;
}

/** `createdAt`: epoch ms inside the Date range (0, the default, is "not set"). */
function time(e: ExperienceInput, row: number, where: string): number {
  const v = num(e, 'createdAt', row, where);
  if (Number.isNaN(v) || outsideTimeRange(v))
    fail(e, row, where, 'createdAt', `epoch milliseconds within ±${MAX_TIME_MS} (a JS Date's range)`, v);
  return v;
}

// One loop per element rule (not a callback per element): these arrays are most of a row's values.
function list(
  e: ExperienceInput,
  k: string,
  value: unknown,
  rule: 'integer' | 'number' | 'bit',
  row: number,
  where: string,
): number[] {
  const v = value ?? [];
  if (!Array.isArray(v)) fail(e, row, where, k, 'an array', v);
  const arr = v as number[];
  const bad = firstBad(arr, rule);
  if (bad >= 0) fail(e, row, where, `${k}[${bad}]`, EXPECTED[rule], arr[bad]);
  return arr;
}

/** A per-token array in the response layout: as given, or an all-tokens array cut to the response. */
function aligned(
  out: Experience,
  what: string,
  values: number[],
  total: number,
  pl: number,
  row: number,
  where: string,
  align: boolean,
): number[] {
  if (values.length === 0 || values.length === total - pl) return values;
  if (values.length === total) return align ? values.slice(pl) : values;
  throw new DataError({
    file: where,
    row,
    message: `experience (id ${out.id}): ${layoutProblem(what, values.length, total, pl)}`,
  });
}

const EXPECTED = { integer: 'a 32-bit integer', number: 'a number', bit: '0 or 1' } as const;

/** Index of the first element that breaks `rule`, or −1. */
function firstBad(arr: readonly unknown[], rule: 'integer' | 'number' | 'bit'): number {
  const n = arr.length;
  if (rule === 'integer') {
    // `x | 0` is x only for an integer in the int32 range the table stores token ids in.
    for (let i = 0; i < n; i++) if (((arr[i] as number) | 0) !== arr[i]) return i;
  } else if (rule === 'number') {
    for (let i = 0; i < n; i++) if (typeof arr[i] !== 'number') return i;
  } else {
    for (let i = 0; i < n; i++) if (arr[i] !== 0 && arr[i] !== 1) return i;
  }
  return -1;
}

function isPlainObject(v: unknown): v is Record<string, never> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 60)}…` : s;
}
