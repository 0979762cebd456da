import type * as arrow from 'apache-arrow';
import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { JsonObject, Message } from '../core/task.ts';
import { type BadCell, describeBadRow, parseJsonCell } from './bad-cell.ts';
import type { RowIdentity, StoredExperience } from './experience-table.ts';
import { BAD_TIME, plainNested, timeReader } from './typed-columns.ts';

/**
 * Reading experience rows back from Arrow: the payload columns a `sample` takes (completed from the
 * in-memory index) and whole stored rows (`read`, export). Cells another tool wrote badly are
 * reported by table, row and column, never as a bare SyntaxError.
 */

function standardMask(n: number, promptLength: number): number[] {
  return new Array<number>(Math.max(0, n - promptLength)).fill(1);
}

/** A stored mask in the response layout; rows written before the one layout hold one entry per token. */
function storedMask(mask: number[], n: number, promptLength: number): number[] {
  return mask.length === n && n > promptLength ? mask.slice(promptLength) : mask;
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
  const c = storedColumns(table);
  const out: StoredExperience[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const row = decodeStoredRow(c, i, opts);
    if (row) out.push(row);
  }
  return out;
}

type StoredColumns = ReturnType<typeof storedColumns>;

/** Every column of a stored table, with readers for its lists and times. */
function storedColumns(table: arrow.Table) {
  const col = (name: string) => table.getChild(name);
  return {
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
    promptLength: col('prompt_length'),
    reward: col('reward'),
    advantage: col('advantage'),
    truncated: col('truncated'),
    info: col('info'),
    useCount: col('use_count'),
    priority: col('priority'),
    expert: col('expert'),
    seq: col('seq'),
    lastUsedStep: col('last_used_step'),
    consumed: col('consumed'),
    tokens: listReader(col('tokens')),
    logprobs: listReader(col('logprobs')),
    actionMask: listReader(col('action_mask')),
    advantages: listReader(col('advantages')),
    createdAt: timeReader(col('created_at')),
    lastUsedAt: timeReader(col('last_used_at')),
  };
}

/** Row `i`, or null when a cell is malformed and `opts.bad` collects it. */
function decodeStoredRow(
  c: StoredColumns,
  i: number,
  opts: { bad?: BadCell[]; tableName?: string },
): StoredExperience | null {
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
  const created = c.createdAt(i) ?? 0;
  const lastAt = c.lastUsedAt(i) ?? 0;
  const times =
    !(Number.isNaN(created) || Number.isNaN(lastAt)) ||
    timeCells(at, opts.bad, { created_at: created, last_used_at: lastAt });
  if (!info.ok || messages?.ok === false || !times) return null;
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
    tokens: c.tokens(i) ?? [],
    logprobs: c.logprobs(i) ?? [],
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
  exp.actionMask = storedMask(c.actionMask(i) ?? [], exp.tokens.length, exp.promptLength);
  const prompt = c.prompt?.get(i);
  if (prompt !== null && prompt !== undefined) exp.prompt = String(prompt);
  if (messages?.ok) exp.messages = messages.value;
  const advantages = c.advantages(i);
  if (advantages) exp.advantages = advantages;
  return {
    exp,
    seq: Number(c.seq?.get(i) ?? -1),
    useCount: exp.useCount,
    priority: exp.priority,
    lastUsedStep: Number(c.lastUsedStep?.get(i) ?? -1),
    lastUsedAt: lastAt,
    consumed: Boolean(c.consumed?.get(i)),
  };
}
