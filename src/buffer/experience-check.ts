import { DataError } from '../core/errors.ts';
import type { Experience, ExperienceInput } from '../core/experience.ts';
import { alignTokenArrays } from '../core/token-alignment.ts';

/**
 * Validate and complete one experience on its way into the buffer. This is the same contract as
 * `ExperienceSchema` (same fields, same defaults), checked by hand: a zod parse costs ~15 µs per
 * experience with 64-token arrays, which alone would eat a third of the 20k experiences/s budget.
 * `tests/buffer/experience-check.test.ts` keeps the two in agreement.
 */
export function checkExperience(e: ExperienceInput, row: number, where = 'buffer.write'): Experience {
  const fail = (field: string, expected: string, got: unknown): never => {
    const id = typeof e?.id === 'string' ? ` (id ${e.id})` : '';
    throw new DataError({
      file: where,
      row,
      message: `experience${id}: ${field} must be ${expected}, got ${describe(got)}`,
    });
  };
  if (e === null || typeof e !== 'object') fail('the row', 'an object', e);
  const str = (k: 'id' | 'taskId' | 'taskset' | 'groupId') => {
    const v = e[k];
    if (typeof v !== 'string' || v.length === 0) fail(k, 'a non-empty string', v);
    return v as string;
  };
  const int = (
    k: 'runIndex' | 'stepIndex' | 'modelVersion' | 'exploreStep' | 'promptLength' | 'useCount',
    def?: number,
  ) => {
    const v = e[k] ?? def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(k, 'a non-negative integer', v);
    return v as number;
  };
  const num = (k: 'advantage' | 'priority' | 'createdAt', def: number) => {
    const v = e[k] ?? def;
    if (typeof v !== 'number') fail(k, 'a number', v);
    return v as number;
  };
  // One loop per element rule (not a callback per element): these arrays are most of a row's values.
  const list = (k: string, value: unknown, rule: 'integer' | 'number' | 'bit') => {
    const v = value ?? [];
    if (!Array.isArray(v)) fail(k, 'an array', v);
    const arr = v as number[];
    const bad = firstBad(arr, rule);
    if (bad >= 0) fail(`${k}[${bad}]`, EXPECTED[rule], arr[bad]);
    return arr;
  };
  const out: Experience = {
    id: str('id'),
    taskId: str('taskId'),
    taskset: str('taskset'),
    groupId: str('groupId'),
    runIndex: int('runIndex'),
    stepIndex: int('stepIndex', 0),
    modelVersion: int('modelVersion'),
    exploreStep: int('exploreStep'),
    response: typeof e.response === 'string' ? e.response : fail('response', 'a string', e.response),
    tokens: list('tokens', e.tokens, 'integer'),
    logprobs: list('logprobs', e.logprobs, 'number'),
    actionMask: list('actionMask', e.actionMask, 'bit'),
    promptLength: int('promptLength', 0),
    reward: typeof e.reward === 'number' ? e.reward : fail('reward', 'a number (NaN allowed)', e.reward),
    advantage: num('advantage', 0),
    truncated:
      e.truncated === undefined
        ? false
        : typeof e.truncated === 'boolean'
          ? e.truncated
          : fail('truncated', 'a boolean', e.truncated),
    info: e.info === undefined ? {} : isPlainObject(e.info) ? e.info : fail('info', 'a JSON object', e.info),
    useCount: int('useCount', 0),
    priority: num('priority', 0),
    createdAt: num('createdAt', 0),
    expert:
      e.expert === undefined
        ? false
        : typeof e.expert === 'boolean'
          ? e.expert
          : fail('expert', 'a boolean', e.expert),
  };
  if (e.prompt !== undefined)
    out.prompt = typeof e.prompt === 'string' ? e.prompt : fail('prompt', 'a string', e.prompt);
  if (e.messages !== undefined) {
    if (!Array.isArray(e.messages)) fail('messages', 'an array of chat messages', e.messages);
    e.messages.forEach((m, i) => {
      if (!isPlainObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string')
        fail(`messages[${i}]`, 'a { role, content } message', m);
      if (!['system', 'user', 'assistant', 'tool'].includes(m.role))
        fail(`messages[${i}].role`, "one of 'system', 'user', 'assistant', 'tool'", m.role);
    });
    out.messages = e.messages;
  }
  if (e.advantages !== undefined) out.advantages = list('advantages', e.advantages, 'number');
  if (out.promptLength > out.tokens.length && out.tokens.length > 0)
    fail('promptLength', `at most tokens.length (${out.tokens.length})`, out.promptLength);
  // Per-token arrays are stored in the one layout (response tokens); an all-tokens mask is converted.
  const aligned = alignTokenArrays(out);
  if (typeof aligned === 'string') {
    const id = ` (id ${out.id})`;
    throw new DataError({ file: where, row, message: `experience${id}: ${aligned}` });
  }
  return aligned;
}

const EXPECTED = { integer: 'an integer', number: 'a number', bit: '0 or 1' } as const;

/** Index of the first element that breaks `rule`, or −1. */
function firstBad(arr: readonly unknown[], rule: 'integer' | 'number' | 'bit'): number {
  const n = arr.length;
  if (rule === 'integer') {
    for (let i = 0; i < n; i++) if (!Number.isInteger(arr[i])) return i;
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
