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

/** Encode tasks as the typed `tasks` table, each with `runId`, `updatedAt` and its content hash. */
export function encodeTasks(tasks: readonly Task[], runId: string, updatedAt: number): arrow.Table {
  const encoder = new TaskRowsEncoder(runId, tasks.length, tasks);
  for (const task of tasks) encoder.push(task);
  return encoder.finish(updatedAt);
}

/** True when `columns` are the typed layout this encoder writes (not an older table's fitted layout). */
export function isTypedTaskLayout(columns: readonly ColumnSpec<StoredTask>[]): boolean {
  return columns.length === TASK_COLUMNS.length && columns.every((c, i) => c === TASK_COLUMNS[i]);
}

/**
 * The typed `tasks` table built one task at a time. A pipeline run encodes each task as it lands,
 * so the tasks of a large commit (50k) die young instead of living, promoted to the old generation,
 * until the commit: with a worker that cost the run's GC ~1 CPU s per 1M rows.
 */
export class TaskRowsEncoder {
  private readonly runId: string;
  private readonly id: Utf8Builder;
  private readonly taskset: Utf8Builder;
  private readonly prompt: Utf8Builder;
  private readonly answer: Utf8Builder;
  private readonly meta: Utf8Builder;
  private readonly sourceFile: Utf8Builder;
  private readonly runIds: Utf8Builder;
  private readonly hash: Utf8Builder;
  private sourceRow: Int32Array;
  private readonly messages: unknown[] = [];
  /** `features` as map entries: keys and values, and per row where its entries end. */
  private readonly featureKeys: string[] = [];
  private readonly featureValues: number[] = [];
  private featureEnds: Int32Array;
  private n = 0;
  private lastSet: string | undefined;
  private lastSetJson = '';
  private setFrom = 0;
  private setTo = 0;
  private lastFile: string | undefined;
  private fileFrom = 0;
  private fileTo = 0;
  private runTo = 0;

  /** `rows`: how many tasks to expect (a hint); `sample`: some of them, to size the prompt bytes. */
  constructor(runId: string, rows: number, sample: readonly Task[] = []) {
    this.runId = runId;
    const n = Math.max(1, rows);
    let textHint = 0;
    const k = Math.min(sample.length, 64);
    for (let i = 0; i < k; i++) textHint += sample[i]!.prompt?.length ?? 64;
    textHint = Math.ceil((k > 0 ? textHint / k : 64) * n * 1.1) + 64;
    this.id = new Utf8Builder(n, n * 12);
    this.taskset = new Utf8Builder(n, n * 8);
    this.prompt = new Utf8Builder(n, textHint);
    this.answer = new Utf8Builder(n, n * 8);
    this.meta = new Utf8Builder(n, n * 2);
    this.sourceFile = new Utf8Builder(n, n * 16);
    this.runIds = new Utf8Builder(n, n * runId.length);
    this.hash = new Utf8Builder(n, n * 16);
    this.sourceRow = new Int32Array(n);
    this.featureEnds = new Int32Array(n + 1);
  }

  /** Tasks pushed so far. */
  get length(): number {
    return this.n;
  }

  push(task: Task): void {
    const i = this.n++;
    if (i >= this.sourceRow.length) this.growRows();
    this.id.push(task.id);
    h1 = 0xdeadbeef;
    h2 = 0x41c6ce57;
    hashChar(91); // [
    const set = task.taskset;
    if (i > 0 && set === this.lastSet) {
      this.taskset.repeat(this.setFrom, this.setTo);
    } else {
      this.setFrom = this.taskset.pos;
      this.taskset.push(set);
      this.setTo = this.taskset.pos;
      this.lastSet = set;
      this.lastSetJson = String(JSON.stringify(set));
    }
    hashText(this.lastSetJson);
    hashChar(44);
    if (typeof task.prompt === 'string') this.prompt.pushHashed(task.prompt);
    else {
      this.prompt.push(task.prompt ?? null);
      hashText(jsonOf(task.prompt));
    }
    hashChar(44);
    this.messages.push(task.messages ?? null);
    hashText(task.messages === undefined ? 'null' : jsonOf(task.messages));
    hashChar(44);
    if (typeof task.answer === 'string') this.answer.pushHashed(task.answer);
    else {
      this.answer.push(task.answer ?? null);
      hashText(jsonOf(task.answer));
    }
    hashChar(44);
    const features = task.features as unknown;
    const noFeatures = isEmptyPlain(features);
    hashText(noFeatures ? '{}' : jsonOf(features));
    // `map<string, double>` entries, without per-row arrays for empty maps.
    if (!noFeatures && features !== null && typeof features === 'object')
      for (const [k, x] of Object.entries(features as Record<string, unknown>)) {
        this.featureKeys.push(k);
        this.featureValues.push(typeof x === 'number' ? x : Number.NaN);
      }
    this.featureEnds[i + 1] = this.featureKeys.length;
    hashChar(44);
    const metaJson = isEmptyPlain(task.meta) ? '{}' : jsonOf(task.meta);
    hashText(metaJson);
    hashChar(93); // ]
    this.meta.push(metaJson);
    this.hash.pushHash();
    const file = task.source?.file ?? '';
    if (i > 0 && file === this.lastFile) this.sourceFile.repeat(this.fileFrom, this.fileTo);
    else {
      this.fileFrom = this.sourceFile.pos;
      this.sourceFile.push(file);
      this.fileTo = this.sourceFile.pos;
      this.lastFile = file;
    }
    this.sourceRow[i] = task.source?.row ?? -1;
    if (i === 0) {
      this.runIds.push(this.runId);
      this.runTo = this.runIds.pos;
    } else this.runIds.repeat(0, this.runTo);
  }

  /** The table of every task pushed, each updated at `updatedAt` (0 or not finite: null). */
  finish(updatedAt: number): arrow.Table {
    const n = this.n;
    const unset = updatedAt === 0 || !Number.isFinite(updatedAt);
    const times = new BigInt64Array(n);
    if (!unset) times.fill(BigInt(Math.round(updatedAt)));
    let timeNulls: { nullBitmap?: Uint8Array; nullCount: number } = { nullCount: 0 };
    if (unset && n > 0) timeNulls = { nullBitmap: new Uint8Array((n + 7) >> 3), nullCount: n };
    const keys = new Utf8Builder(this.featureKeys.length, this.featureKeys.length * 12);
    for (const k of this.featureKeys) keys.push(k);
    const children: arrow.Data[] = [
      this.id.data(false),
      this.taskset.data(false),
      this.prompt.data(false),
      messagesData(this.messages),
      this.answer.data(false),
      numberMapFromEntries(keys.data(false), this.featureValues, this.featureEnds.subarray(0, n + 1)),
      this.meta.data(false),
      this.sourceFile.data(false),
      arrow.makeData({
        type: new arrow.Int32(),
        length: n,
        nullCount: 0,
        data: this.sourceRow.subarray(0, n),
      }),
      this.runIds.data(false),
      this.hash.data(false),
      arrow.makeData({ type: TIMESTAMP_MS, length: n, data: times as unknown as Int32Array, ...timeNulls }),
    ];
    const batch = new arrow.RecordBatch(
      TASK_SCHEMA,
      arrow.makeData({ type: new arrow.Struct(TASK_SCHEMA.fields), length: n, nullCount: 0, children }),
    );
    return new arrow.Table(TASK_SCHEMA, [batch]);
  }

  private growRows(): void {
    const rows = new Int32Array(this.sourceRow.length * 2);
    rows.set(this.sourceRow);
    this.sourceRow = rows;
    const ends = new Int32Array(rows.length + 1);
    ends.set(this.featureEnds);
    this.featureEnds = ends;
  }
}
