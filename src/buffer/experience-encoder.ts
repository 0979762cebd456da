import { endianness } from 'node:os';
import * as arrow from 'apache-arrow';
import type { Experience } from '../core/experience.ts';
import type { ColumnSpec } from './arrow-codec.ts';
import type { EncodedWrite } from './encoded-write.ts';
import {
  EXPERIENCE_COLUMNS,
  EXPERIENCE_SCHEMA,
  infoText,
  PAYLOAD_FLAG,
  type StoredExperience,
} from './experience-table.ts';
import { messagesData, TIMESTAMP_MS } from './typed-columns.ts';
import { Utf8Column } from './utf8-column.ts';

/**
 * A write call's checked experiences encoded straight into the experience table's typed layout:
 * one pass over the rows writes every column's buffers. Equal, cell for cell, to
 * `encodeRowsFast(rows.map(unnumbered), EXPERIENCE_COLUMNS)` (tests/buffer/experience-encoder.test.ts),
 * which builds a StoredExperience per row, then one array of values per column, then each column,
 * and computes `payload_flags` in a pass of its own over every action mask. Here printable ASCII
 * text (ids, group ids, most prompts and responses) is copied a byte at a time, a column whose
 * value repeats (taskset) reuses its bytes, the three per-token lists are copied into their flat
 * typed arrays while the mask's "standard" test runs in the same loop, and times are written as
 * 64-bit words without a BigInt per row. `seq` and `priority` are 0 (numbered at commit).
 *
 * Each column has its own buffers (LanceDB's IPC hand-off breaks on shared ArrayBuffers).
 */

const LITTLE_ENDIAN = endianness() === 'LE';
const TWO_32 = 2 ** 32;

/** True when `columns` are the typed layout this encoder writes (not an older table's fitted layout). */
export function isTypedExperienceLayout(columns: readonly ColumnSpec<StoredExperience>[]): boolean {
  return columns.length === EXPERIENCE_COLUMNS.length && columns.every((c, i) => c === EXPERIENCE_COLUMNS[i]);
}

const int32 = (data: Int32Array) =>
  arrow.makeData({ type: new arrow.Int32(), length: data.length, nullCount: 0, data });
const float64 = (data: Float64Array) =>
  arrow.makeData({ type: new arrow.Float64(), length: data.length, nullCount: 0, data });
const bools = (n: number, data: Uint8Array) =>
  arrow.makeData({ type: new arrow.Bool(), length: n, nullCount: 0, data });

/** A list column of the schema's own type (its item field included). */
function list(
  name: string,
  n: number,
  offsets: Int32Array,
  child: arrow.Data,
  bitmap?: Uint8Array,
  nulls = 0,
): arrow.Data {
  return arrow.makeData({
    type: EXPERIENCE_SCHEMA.fields.find((f) => f.name === name)!.type as arrow.List,
    length: n,
    valueOffsets: offsets,
    child,
    nullCount: nulls,
    ...(nulls > 0 ? { nullBitmap: bitmap } : {}),
  });
}

/** Epoch milliseconds as a timestamp word pair (lo, hi) at row `i`; false when it needs a BigInt. */
function writeMs(words: Int32Array, i: number, ms: number): boolean {
  if (!LITTLE_ENDIAN || !(Math.abs(ms) < 2 ** 53)) return false;
  const hi = Math.floor(ms / TWO_32);
  words[2 * i] = ms - hi * TWO_32;
  words[2 * i + 1] = hi;
  return true;
}

/**
 * Where a checked per-token array's response part starts: 0 in the response layout, the prompt
 * length for an all-tokens array (`checkRows` leaves those as given; `checkExperience` would cut
 * them, by the same rule).
 */
export function responseFrom(len: number, tokens: number, promptLength: number): number {
  const pl = Math.min(promptLength, tokens);
  return len === tokens && len !== tokens - pl ? pl : 0;
}

// One small copy loop per element type, so each stays monomorphic and is optimized on its own.
function copyI32(flat: Int32Array, v: readonly number[], at: number): void {
  for (let k = 0; k < v.length; k++) flat[at + k] = v[k]!;
}

/** Copy `v` from index `from` on into `flat` at `at`; returns the number copied. */
function copyF32(flat: Float32Array, v: readonly number[], from: number, at: number): number {
  const n = v.length - from;
  for (let k = 0; k < n; k++) flat[at + k] = v[from + k]!;
  return n;
}

/** Copy an action mask from `from` on; true when every copied entry is 1 (the standard mask's test). */
function copyMask(flat: Uint8Array, v: readonly number[], from: number, at: number): boolean {
  let ones = true;
  const n = v.length - from;
  for (let k = 0; k < n; k++) {
    const x = v[from + k]!;
    flat[at + k] = x;
    if (x !== 1) ones = false;
  }
  return ones;
}

/**
 * Encode checked experiences as new rows of the typed experience table (seq and priority 0).
 * Per-token arrays may be in either layout (`checkRows`); they are stored in the response layout.
 */
export function encodeExperienceRows(rows: readonly Experience[]): EncodedWrite {
  const n = rows.length;
  let nTok = 0;
  let nLp = 0;
  let nMask = 0;
  let nAdv = 0;
  let text = 0;
  for (let i = 0; i < n; i++) {
    const e = rows[i]!;
    const total = e.tokens.length;
    nTok += total;
    nLp += e.logprobs.length - responseFrom(e.logprobs.length, total, e.promptLength);
    nMask += e.actionMask.length - responseFrom(e.actionMask.length, total, e.promptLength);
    if (e.advantages !== undefined)
      nAdv += e.advantages.length - responseFrom(e.advantages.length, total, e.promptLength);
    text += e.response.length + (e.prompt?.length ?? 0);
  }
  const id = new Utf8Column(n, n * 16);
  const taskId = new Utf8Column(n, n * 12);
  const taskset = new Utf8Column(n, n * 8);
  const groupId = new Utf8Column(n, n * 12);
  const prompt = new Utf8Column(n, text + 64);
  const response = new Utf8Column(n, text + 64);
  const info = new Utf8Column(n, n * 2);
  const runIndex = new Int32Array(n);
  const stepIndex = new Int32Array(n);
  const modelVersion = new Int32Array(n);
  const exploreStep = new Int32Array(n);
  const promptLength = new Int32Array(n);
  const reward = new Float64Array(n);
  const advantage = new Float64Array(n);
  const truncated = new Uint8Array((n + 7) >> 3);
  const expert = new Uint8Array((n + 7) >> 3);
  const flags = new Int32Array(n);
  const created = new BigInt64Array(n);
  const createdWords = new Int32Array(created.buffer);
  const createdValid = new Uint8Array((n + 7) >> 3);
  let createdNulls = 0;
  const tokOff = new Int32Array(n + 1);
  const lpOff = new Int32Array(n + 1);
  const maskOff = new Int32Array(n + 1);
  const advOff = new Int32Array(n + 1);
  const tok = new Int32Array(nTok);
  const lp = new Float32Array(nLp);
  const mask = new Uint8Array(nMask);
  const adv = new Float32Array(nAdv);
  const advValid = new Uint8Array((n + 7) >> 3);
  let advNulls = 0;
  const messages = new Array<unknown>(n);
  let hasMessages = false;
  let lastSet: string | undefined;
  let setFrom = 0;
  let setTo = 0;
  let t = 0;
  let l = 0;
  let m = 0;
  let a = 0;
  for (let i = 0; i < n; i++) {
    const e = rows[i]!;
    const bit = 1 << (i & 7);
    const byte = i >> 3;
    id.push(e.id);
    taskId.push(e.taskId);
    if (i > 0 && e.taskset === lastSet) taskset.repeat(setFrom, setTo);
    else {
      setFrom = taskset.pos;
      taskset.push(e.taskset);
      setTo = taskset.pos;
      lastSet = e.taskset;
    }
    groupId.push(e.groupId);
    runIndex[i] = e.runIndex;
    stepIndex[i] = e.stepIndex;
    modelVersion[i] = e.modelVersion;
    exploreStep[i] = e.exploreStep;
    let f = 0;
    if (e.prompt === undefined || e.prompt === null) prompt.pushNull();
    else prompt.push(e.prompt);
    if (e.prompt !== undefined) f |= PAYLOAD_FLAG.prompt;
    if (e.messages !== undefined) {
      f |= PAYLOAD_FLAG.messages;
      hasMessages = true;
    }
    messages[i] = e.messages ?? null;
    response.push(e.response);
    const tk = e.tokens;
    copyI32(tok, tk, t);
    t += tk.length;
    tokOff[i + 1] = t;
    const total = tk.length;
    const pl = e.promptLength;
    const lv = e.logprobs;
    l += copyF32(lp, lv, responseFrom(lv.length, total, pl), l);
    lpOff[i + 1] = l;
    const mv = e.actionMask;
    const mFrom = responseFrom(mv.length, total, pl);
    const ones = copyMask(mask, mv, mFrom, m);
    m += mv.length - mFrom;
    maskOff[i + 1] = m;
    if (!(ones && mv.length - mFrom === total - pl)) f |= PAYLOAD_FLAG.actionMask;
    promptLength[i] = e.promptLength;
    reward[i] = e.reward;
    advantage[i] = e.advantage;
    const av = e.advantages;
    if (av === undefined || av === null) advNulls++;
    else {
      f |= PAYLOAD_FLAG.advantages;
      advValid[byte]! |= bit;
      a += copyF32(adv, av, responseFrom(av.length, total, pl), a);
    }
    advOff[i + 1] = a;
    if (e.truncated) truncated[byte]! |= bit;
    info.push(infoText(e.info));
    for (const _ in e.info) {
      f |= PAYLOAD_FLAG.info;
      break;
    }
    const at = e.createdAt;
    if (at === null || at === undefined || at === 0 || !Number.isFinite(at)) createdNulls++;
    else {
      createdValid[byte]! |= bit;
      const ms = Math.round(at);
      if (!writeMs(createdWords, i, ms)) created[i] = BigInt(ms);
    }
    if (e.expert) expert[byte]! |= bit;
    flags[i] = f;
  }
  const lastUsedAt = arrow.makeData({
    type: TIMESTAMP_MS,
    length: n,
    data: new BigInt64Array(n) as unknown as Int32Array,
    nullCount: n,
    ...(n > 0 ? { nullBitmap: new Uint8Array((n + 7) >> 3) } : {}),
  });
  const lastUsedStep = new Int32Array(n).fill(-1);
  const children: arrow.Data[] = [
    id.data(true),
    taskId.data(true),
    taskset.data(true),
    groupId.data(true),
    int32(runIndex),
    int32(stepIndex),
    int32(modelVersion),
    int32(exploreStep),
    prompt.data(true),
    messagesData(hasMessages ? messages : new Array(n).fill(null)),
    response.data(true),
    list('tokens', n, tokOff, int32(tok)),
    list(
      'logprobs',
      n,
      lpOff,
      arrow.makeData({ type: new arrow.Float32(), length: nLp, nullCount: 0, data: lp }),
    ),
    list(
      'action_mask',
      n,
      maskOff,
      arrow.makeData({ type: new arrow.Uint8(), length: nMask, nullCount: 0, data: mask }),
    ),
    int32(promptLength),
    float64(reward),
    float64(advantage),
    list(
      'advantages',
      n,
      advOff,
      arrow.makeData({ type: new arrow.Float32(), length: nAdv, nullCount: 0, data: adv }),
      advValid,
      advNulls,
    ),
    bools(n, truncated),
    info.data(true),
    int32(new Int32Array(n)),
    float64(new Float64Array(n)),
    arrow.makeData({
      type: TIMESTAMP_MS,
      length: n,
      data: created as unknown as Int32Array,
      nullCount: createdNulls,
      ...(createdNulls > 0 ? { nullBitmap: createdValid } : {}),
    }),
    bools(n, expert),
    float64(new Float64Array(n)),
    int32(lastUsedStep),
    lastUsedAt,
    bools(n, new Uint8Array((n + 7) >> 3)),
    int32(flags),
  ];
  const batch = new arrow.RecordBatch(
    EXPERIENCE_SCHEMA,
    arrow.makeData({ type: new arrow.Struct(EXPERIENCE_SCHEMA.fields), length: n, nullCount: 0, children }),
  );
  return { batch, flags };
}
