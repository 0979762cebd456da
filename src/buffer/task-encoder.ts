import * as arrow from 'apache-arrow';
import type { Task } from '../core/task.ts';
import type { ColumnSpec } from './arrow-codec.ts';
import { type StoredTask, TASK_COLUMNS, TASK_SCHEMA } from './task-table.ts';
import { messagesData, numberMapFromEntries, TIMESTAMP_MS } from './typed-columns.ts';
import { Utf8Column } from './utf8-column.ts';

/**
 * The `tasks` table's typed layout encoded straight from tasks, column buffers written in one pass
 * per row. Equal, value for value, to `encodeRows(tasks.map(storedTask), TASK_COLUMNS)`, but a
 * pipeline run lands every row through here, and that path built per row a StoredTask, three JSON
 * cells, the whole hash text as one string, then one value array per column: about 2 µs a row on
 * the thread that also parses and maps. Here printable-ASCII text (almost every id and prompt) is
 * copied byte by byte while the content hash runs over the same characters, constant columns
 * (taskset, run id, source file) reuse their bytes, and the hash is written as hex bytes.
 */

// fastHash64's state (core/ids.ts), kept here so the hash can run over pieces without joining them.
let h1 = 0;
let h2 = 0;

function hashChar(c: number): void {
  h1 = Math.imul(h1 ^ c, 2654435761);
  h2 = Math.imul(h2 ^ c, 1597334677);
}

function hashText(s: string): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
}

const HEX = new TextEncoder().encode('0123456789abcdef');
const utf8Encoder = new TextEncoder();
/** What JSON.stringify escapes in a string (lone surrogates included, so any surrogate is checked). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A Utf8 column that can also feed the content hash while it copies. */
class Utf8Builder extends Utf8Column {
  /**
   * A string that also enters the content hash as its JSON text. Printable ASCII without `"` or
   * `\` is JSON-quoted as is: copied and hashed in one loop. Anything else takes the general path.
   */
  pushHashed(s: string): void {
    this.markValid();
    const n = s.length;
    const out = this.reserve(n * 3);
    const start = this.pos;
    const s1 = h1;
    const s2 = h2;
    hashChar(34);
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x7f || c < 0x20 || c === 34 || c === 92) break;
      out[start + i] = c;
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    if (i === n) {
      hashChar(34);
      this.pos = start + n;
    } else {
      h1 = s1;
      h2 = s2;
      this.pos = start + (n > 0 ? utf8Encoder.encodeInto(s, out.subarray(start)).written : 0);
      if (NEEDS_ESCAPE.test(s)) hashText(JSON.stringify(s));
      else {
        hashChar(34);
        hashText(s);
        hashChar(34);
      }
    }
    this.end();
  }

  /** The final hash as 16 hex bytes, fastHash64's finish. */
  pushHash(): void {
    let a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
    a >>>= 0;
    const hi = b >>> 0;
    const out = this.reserve(16);
    for (let k = 0; k < 8; k++) {
      out[this.pos + k] = HEX[(hi >>> (28 - 4 * k)) & 15]!;
      out[this.pos + 8 + k] = HEX[(a >>> (28 - 4 * k)) & 15]!;
    }
    this.pos += 16;
    this.markValid();
    this.end();
  }
}

/** A plain object with no keys (JSON `{}`), tested without allocating. */
function isEmptyPlain(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const _ in v) return false;
  return true;
}

const jsonOf = (v: unknown) => JSON.stringify(v ?? null);

/** `map<string, double>` as `numberMapData` builds it, without per-row arrays for empty maps. */
function featuresData(tasks: readonly Task[]): arrow.Data {
  const n = tasks.length;
  const offsets = new Int32Array(n + 1);
  const keys: string[] = [];
  const nums: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = tasks[i]!.features as unknown;
    if (v !== null && typeof v === 'object' && !isEmptyPlain(v))
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        keys.push(k);
        nums.push(typeof x === 'number' ? x : Number.NaN);
      }
    offsets[i + 1] = keys.length;
  }
  const keyCol = new Utf8Builder(keys.length, keys.length * 12);
  for (const k of keys) keyCol.push(k);
  return numberMapFromEntries(keyCol.data(false), nums, offsets);
}

/** True when `columns` are the typed layout this encoder writes (not an older table's fitted layout). */
export function isTypedTaskLayout(columns: readonly ColumnSpec<StoredTask>[]): boolean {
  return columns.length === TASK_COLUMNS.length && columns.every((c, i) => c === TASK_COLUMNS[i]);
}

/** Encode tasks as the typed `tasks` table, each with `runId`, `updatedAt` and its content hash. */
export function encodeTasks(tasks: readonly Task[], runId: string, updatedAt: number): arrow.Table {
  const n = tasks.length;
  let textHint = 0;
  for (let i = 0; i < Math.min(n, 64); i++) textHint += tasks[i]!.prompt?.length ?? 64;
  textHint = Math.ceil((textHint / Math.max(1, Math.min(n, 64))) * n * 1.1) + 64;
  const id = new Utf8Builder(n, n * 12);
  const taskset = new Utf8Builder(n, n * 8);
  const prompt = new Utf8Builder(n, textHint);
  const answer = new Utf8Builder(n, n * 8);
  const meta = new Utf8Builder(n, n * 2);
  const sourceFile = new Utf8Builder(n, n * 16);
  const runIds = new Utf8Builder(n, n * runId.length);
  const hash = new Utf8Builder(n, n * 16);
  const sourceRow = new Int32Array(n);
  const messages = new Array<unknown>(n);
  let lastSet: string | undefined;
  let lastSetJson = '';
  let setFrom = 0;
  let setTo = 0;
  let lastFile: string | undefined;
  let fileFrom = 0;
  let fileTo = 0;
  const runFrom = 0;
  let runTo = 0;
  for (let i = 0; i < n; i++) {
    const task = tasks[i]!;
    id.push(task.id);
    h1 = 0xdeadbeef;
    h2 = 0x41c6ce57;
    hashChar(91); // [
    const set = task.taskset;
    if (i > 0 && set === lastSet) {
      taskset.repeat(setFrom, setTo);
    } else {
      setFrom = taskset.pos;
      taskset.push(set);
      setTo = taskset.pos;
      lastSet = set;
      lastSetJson = String(JSON.stringify(set));
    }
    hashText(lastSetJson);
    hashChar(44);
    if (typeof task.prompt === 'string') prompt.pushHashed(task.prompt);
    else {
      prompt.push(task.prompt ?? null);
      hashText(jsonOf(task.prompt));
    }
    hashChar(44);
    messages[i] = task.messages ?? null;
    hashText(task.messages === undefined ? 'null' : jsonOf(task.messages));
    hashChar(44);
    if (typeof task.answer === 'string') answer.pushHashed(task.answer);
    else {
      answer.push(task.answer ?? null);
      hashText(jsonOf(task.answer));
    }
    hashChar(44);
    hashText(isEmptyPlain(task.features) ? '{}' : jsonOf(task.features));
    hashChar(44);
    const metaJson = isEmptyPlain(task.meta) ? '{}' : jsonOf(task.meta);
    hashText(metaJson);
    hashChar(93); // ]
    meta.push(metaJson);
    hash.pushHash();
    const file = task.source?.file ?? '';
    if (i > 0 && file === lastFile) sourceFile.repeat(fileFrom, fileTo);
    else {
      fileFrom = sourceFile.pos;
      sourceFile.push(file);
      fileTo = sourceFile.pos;
      lastFile = file;
    }
    sourceRow[i] = task.source?.row ?? -1;
    if (i === 0) {
      runIds.push(runId);
      runTo = runIds.pos;
    } else runIds.repeat(runFrom, runTo);
  }
  const unset = updatedAt === 0 || !Number.isFinite(updatedAt);
  const times = new BigInt64Array(n);
  if (!unset) times.fill(BigInt(Math.round(updatedAt)));
  let timeNulls: { nullBitmap?: Uint8Array; nullCount: number } = { nullCount: 0 };
  if (unset && n > 0) timeNulls = { nullBitmap: new Uint8Array((n + 7) >> 3), nullCount: n };
  const children: arrow.Data[] = [
    id.data(false),
    taskset.data(false),
    prompt.data(false),
    messagesData(messages),
    answer.data(false),
    featuresData(tasks),
    meta.data(false),
    sourceFile.data(false),
    arrow.makeData({ type: new arrow.Int32(), length: n, nullCount: 0, data: sourceRow }),
    runIds.data(false),
    hash.data(false),
    arrow.makeData({ type: TIMESTAMP_MS, length: n, data: times as unknown as Int32Array, ...timeNulls }),
  ];
  const batch = new arrow.RecordBatch(
    TASK_SCHEMA,
    arrow.makeData({ type: new arrow.Struct(TASK_SCHEMA.fields), length: n, nullCount: 0, children }),
  );
  return new arrow.Table(TASK_SCHEMA, [batch]);
}
