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
  const cols = new RowBuffers(n, payloadSizes(rows));
  for (let i = 0; i < n; i++) cols.push(rows[i]!, i);
  const batch = new arrow.RecordBatch(
    EXPERIENCE_SCHEMA,
    arrow.makeData({
      type: new arrow.Struct(EXPERIENCE_SCHEMA.fields),
      length: n,
      nullCount: 0,
      children: cols.children(),
    }),
  );
  return { batch, flags: cols.flags };
}

interface PayloadSizes {
  tokens: number;
  logprobs: number;
  mask: number;
  advantages: number;
  text: number;
}

/** Entries of each flat per-token array, and the characters of text, that `rows` need. */
function payloadSizes(rows: readonly Experience[]): PayloadSizes {
  const z: PayloadSizes = { tokens: 0, logprobs: 0, mask: 0, advantages: 0, text: 0 };
  for (const e of rows) {
    const total = e.tokens.length;
    z.tokens += total;
    z.logprobs += e.logprobs.length - responseFrom(e.logprobs.length, total, e.promptLength);
    z.mask += e.actionMask.length - responseFrom(e.actionMask.length, total, e.promptLength);
    if (e.advantages !== undefined)
      z.advantages += e.advantages.length - responseFrom(e.advantages.length, total, e.promptLength);
    z.text += e.response.length + (e.prompt?.length ?? 0);
  }
  return z;
}

/** The buffers of every column for `n` rows, filled one row at a time by `push`. */
class RowBuffers {
  readonly n: number;
  readonly sizes: PayloadSizes;
  readonly id: Utf8Column;
  readonly taskId: Utf8Column;
  readonly taskset: Utf8Column;
  readonly groupId: Utf8Column;
  readonly prompt: Utf8Column;
  readonly response: Utf8Column;
  readonly info: Utf8Column;
  readonly runIndex: Int32Array;
  readonly stepIndex: Int32Array;
  readonly modelVersion: Int32Array;
  readonly exploreStep: Int32Array;
  readonly promptLength: Int32Array;
  readonly reward: Float64Array;
  readonly advantage: Float64Array;
  readonly truncated: Uint8Array;
  readonly expert: Uint8Array;
  readonly flags: Int32Array;
  readonly created: BigInt64Array;
  readonly createdWords: Int32Array;
  readonly createdValid: Uint8Array;
  createdNulls = 0;
  readonly tokOff: Int32Array;
  readonly lpOff: Int32Array;
  readonly maskOff: Int32Array;
  readonly advOff: Int32Array;
  readonly tok: Int32Array;
  readonly lp: Float32Array;
  readonly mask: Uint8Array;
  readonly adv: Float32Array;
  readonly advValid: Uint8Array;
  advNulls = 0;
  readonly messages: unknown[];
  hasMessages = false;
  // The taskset bytes of the previous row, reused while it repeats.
  private lastSet: string | undefined;
  private setFrom = 0;
  private setTo = 0;
  // Write positions in the flat per-token arrays.
  private t = 0;
  private l = 0;
  private m = 0;
  private a = 0;

  constructor(n: number, z: PayloadSizes) {
    this.n = n;
    this.sizes = z;
    const bits = (n + 7) >> 3;
    this.id = new Utf8Column(n, n * 16);
    this.taskId = new Utf8Column(n, n * 12);
    this.taskset = new Utf8Column(n, n * 8);
    this.groupId = new Utf8Column(n, n * 12);
    this.prompt = new Utf8Column(n, z.text + 64);
    this.response = new Utf8Column(n, z.text + 64);
    this.info = new Utf8Column(n, n * 2);
    this.runIndex = new Int32Array(n);
    this.stepIndex = new Int32Array(n);
    this.modelVersion = new Int32Array(n);
    this.exploreStep = new Int32Array(n);
    this.promptLength = new Int32Array(n);
    this.reward = new Float64Array(n);
    this.advantage = new Float64Array(n);
    this.truncated = new Uint8Array(bits);
    this.expert = new Uint8Array(bits);
    this.flags = new Int32Array(n);
    this.created = new BigInt64Array(n);
    this.createdWords = new Int32Array(this.created.buffer);
    this.createdValid = new Uint8Array(bits);
    this.tokOff = new Int32Array(n + 1);
    this.lpOff = new Int32Array(n + 1);
    this.maskOff = new Int32Array(n + 1);
    this.advOff = new Int32Array(n + 1);
    this.tok = new Int32Array(z.tokens);
    this.lp = new Float32Array(z.logprobs);
    this.mask = new Uint8Array(z.mask);
    this.adv = new Float32Array(z.advantages);
    this.advValid = new Uint8Array(bits);
    this.messages = new Array<unknown>(n);
  }

  /** Row `i`: its payload flags are the OR of what each part found. */
  push(e: Experience, i: number): void {
    this.flags[i] = this.pushScalars(e, i) | this.pushTokenArrays(e, i) | this.pushTail(e, i);
  }

  /** Ids, indices, texts and messages. */
  private pushScalars(e: Experience, i: number): number {
    this.id.push(e.id);
    this.taskId.push(e.taskId);
    if (i > 0 && e.taskset === this.lastSet) this.taskset.repeat(this.setFrom, this.setTo);
    else {
      this.setFrom = this.taskset.pos;
      this.taskset.push(e.taskset);
      this.setTo = this.taskset.pos;
      this.lastSet = e.taskset;
    }
    this.groupId.push(e.groupId);
    this.runIndex[i] = e.runIndex;
    this.stepIndex[i] = e.stepIndex;
    this.modelVersion[i] = e.modelVersion;
    this.exploreStep[i] = e.exploreStep;
    let f = 0;
    if (e.prompt === undefined || e.prompt === null) this.prompt.pushNull();
    else this.prompt.push(e.prompt);
    if (e.prompt !== undefined) f |= PAYLOAD_FLAG.prompt;
    if (e.messages !== undefined) {
      f |= PAYLOAD_FLAG.messages;
      this.hasMessages = true;
    }
    this.messages[i] = e.messages ?? null;
    this.response.push(e.response);
    this.promptLength[i] = e.promptLength;
    this.reward[i] = e.reward;
    this.advantage[i] = e.advantage;
    return f;
  }

  /** Tokens, and the response part of logprobs, action mask and per-token advantages. */
  private pushTokenArrays(e: Experience, i: number): number {
    let f = 0;
    const tk = e.tokens;
    copyI32(this.tok, tk, this.t);
    this.t += tk.length;
    this.tokOff[i + 1] = this.t;
    const total = tk.length;
    const pl = e.promptLength;
    const lv = e.logprobs;
    this.l += copyF32(this.lp, lv, responseFrom(lv.length, total, pl), this.l);
    this.lpOff[i + 1] = this.l;
    const mv = e.actionMask;
    const mFrom = responseFrom(mv.length, total, pl);
    const ones = copyMask(this.mask, mv, mFrom, this.m);
    this.m += mv.length - mFrom;
    this.maskOff[i + 1] = this.m;
    if (!(ones && mv.length - mFrom === total - pl)) f |= PAYLOAD_FLAG.actionMask;
    const av = e.advantages;
    if (av === undefined || av === null) this.advNulls++;
    else {
      f |= PAYLOAD_FLAG.advantages;
      this.advValid[i >> 3]! |= 1 << (i & 7);
      this.a += copyF32(this.adv, av, responseFrom(av.length, total, pl), this.a);
    }
    this.advOff[i + 1] = this.a;
    return f;
  }

  /** Truncated, info, created_at and expert. */
  private pushTail(e: Experience, i: number): number {
    let f = 0;
    const bit = 1 << (i & 7);
    const byte = i >> 3;
    if (e.truncated) this.truncated[byte]! |= bit;
    this.info.push(infoText(e.info));
    for (const _ in e.info) {
      f |= PAYLOAD_FLAG.info;
      break;
    }
    const at = e.createdAt;
    if (at === null || at === undefined || at === 0 || !Number.isFinite(at)) this.createdNulls++;
    else {
      this.createdValid[byte]! |= bit;
      const ms = Math.round(at);
      if (!writeMs(this.createdWords, i, ms)) this.created[i] = BigInt(ms);
    }
    if (e.expert) this.expert[byte]! |= bit;
    return f;
  }

  /** The table's columns in schema order. */
  children(): arrow.Data[] {
    const n = this.n;
    const z = this.sizes;
    const f32 = (length: number, data: Float32Array) =>
      arrow.makeData({ type: new arrow.Float32(), length, nullCount: 0, data });
    const lastUsedAt = arrow.makeData({
      type: TIMESTAMP_MS,
      length: n,
      data: new BigInt64Array(n) as unknown as Int32Array,
      nullCount: n,
      ...(n > 0 ? { nullBitmap: new Uint8Array((n + 7) >> 3) } : {}),
    });
    return [
      this.id.data(true),
      this.taskId.data(true),
      this.taskset.data(true),
      this.groupId.data(true),
      int32(this.runIndex),
      int32(this.stepIndex),
      int32(this.modelVersion),
      int32(this.exploreStep),
      this.prompt.data(true),
      messagesData(this.hasMessages ? this.messages : new Array(n).fill(null)),
      this.response.data(true),
      list('tokens', n, this.tokOff, int32(this.tok)),
      list('logprobs', n, this.lpOff, f32(z.logprobs, this.lp)),
      list(
        'action_mask',
        n,
        this.maskOff,
        arrow.makeData({ type: new arrow.Uint8(), length: z.mask, nullCount: 0, data: this.mask }),
      ),
      int32(this.promptLength),
      float64(this.reward),
      float64(this.advantage),
      list('advantages', n, this.advOff, f32(z.advantages, this.adv), this.advValid, this.advNulls),
      bools(n, this.truncated),
      this.info.data(true),
      int32(new Int32Array(n)),
      float64(new Float64Array(n)),
      arrow.makeData({
        type: TIMESTAMP_MS,
        length: n,
        data: this.created as unknown as Int32Array,
        nullCount: this.createdNulls,
        ...(this.createdNulls > 0 ? { nullBitmap: this.createdValid } : {}),
      }),
      bools(n, this.expert),
      float64(new Float64Array(n)),
      int32(new Int32Array(n).fill(-1)),
      lastUsedAt,
      bools(n, new Uint8Array((n + 7) >> 3)),
      int32(this.flags),
    ];
  }
}
