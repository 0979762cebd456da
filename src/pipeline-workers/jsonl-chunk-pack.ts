import type { Task } from '../core/task.ts';
import {
  adoptProfile,
  keptProfile,
  PACKED_PROFILE_INTS,
  packProfile,
} from '../operators/task/text-profile.ts';
import type { ChunkRows } from './jsonl-chunk-rows.ts';

/**
 * A chunk's rows on their way from a worker to the main thread. A structured clone of ~8k task
 * objects costs the main thread ~1.5 µs a row to decode and JSON ~2.5 µs; here the rows of the
 * usual shape — `{id, taskset, prompt?, answer?, features: {}, meta: {}, source}` in that key order,
 * the mapping's own — travel as one string of their texts and typed arrays (transferred), and the
 * main thread builds each task with one object literal. Rows of any other shape (chat messages,
 * features or meta set, another key order) go as objects in `odd`, in row order.
 */
export interface PackedChunk {
  lines: number;
  records: number;
  readRejected: ChunkRows['readRejected'];
  readBefore: Int32Array;
  mapRejected: ChunkRows['mapRejected'];
  mapOrdinal: Int32Array;
  mapMs: number;
  rejected: ChunkRows['rejected'];
  rejectedOrdinal: Int32Array;
  taskset: string;
  /** Every usual row's id, prompt and answer, end to end. */
  text: string;
  /** Per row: id length (-1: the row is the next one of `odd`), prompt length, answer length (-1: none). */
  lens: Int32Array;
  /** Per row, its line in the chunk. */
  rows: Int32Array;
  taskOrdinal: Int32Array;
  /** Per row, the ASCII profile of its prompt the steps made (text-profile.ts), PACKED_PROFILE_INTS numbers each. */
  profiles: Int32Array;
  odd: Task[];
}

const USUAL_KEYS = ['id', 'taskset', 'prompt', 'answer', 'features', 'meta', 'source'];

/** True when `t` is a row of the usual shape (see PackedChunk) from `file`, taskset `taskset`. */
export function usual(t: Task, taskset: string, file: string): boolean {
  let at = 0;
  for (const key in t) {
    while (at < USUAL_KEYS.length && USUAL_KEYS[at] !== key && (at === 2 || at === 3)) at++;
    if (USUAL_KEYS[at] !== key) return false;
    at++;
  }
  if (at !== USUAL_KEYS.length || t.taskset !== taskset || typeof t.id !== 'string') return false;
  if ('prompt' in t && typeof t.prompt !== 'string') return false;
  if ('answer' in t && typeof t.answer !== 'string') return false;
  if (!empty(t.features) || !empty(t.meta)) return false;
  const s = t.source;
  if (typeof s !== 'object' || s === null || s.file !== file) return false;
  let n = 0;
  for (const key in s) if (key !== (n++ === 0 ? 'file' : 'row')) return false;
  return n === 2;
}

/**
 * An empty plain object. Only enumerable string keys count: that is all a structured clone, JSON and
 * the task encoder ever read of `features` and `meta`.
 */
function empty(o: object): boolean {
  if (typeof o !== 'object' || o === null || Object.getPrototypeOf(o) !== Object.prototype) return false;
  for (const _ in o) return false;
  return true;
}

/** Where a packed chunk's texts collect, end to end, until they become its one `text`. */
export interface ChunkText {
  add(s: string): void;
  finish(): string;
}

/** Texts kept as they are and joined at the end. */
class JoinedText implements ChunkText {
  private readonly parts: string[] = [];
  add(s: string): void {
    this.parts.push(s);
  }
  finish(): string {
    return this.parts.join('');
  }
}

/**
 * Texts written as bytes into one buffer and decoded once (no string per piece, no join): ASCII
 * bytes as they come (`bytes`), strings when they are ASCII. A string that is not (its UTF-8 is
 * longer) closes the bytes so far as one piece and is kept as it is.
 */
export class ByteText implements ChunkText {
  private buf: Buffer;
  private at = 0;
  private from = 0;
  private readonly parts: string[] = [];

  /** `buf`: where to write (grown as needed; a reader keeps `buffer` for its next chunk). */
  constructor(buf: Buffer) {
    this.buf = buf;
  }

  get buffer(): Buffer {
    return this.buf;
  }

  /** ASCII bytes src[from, to). */
  bytes(src: Buffer, from: number, to: number): void {
    this.room(to - from);
    this.at += src.copy(this.buf, this.at, from, to);
  }

  add(s: string): void {
    this.room(s.length * 3);
    const written = this.buf.write(s, this.at, 'utf8');
    if (written === s.length) {
      this.at += written;
      return;
    }
    this.close();
    this.parts.push(s);
  }

  finish(): string {
    this.close();
    return this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
  }

  private close(): void {
    if (this.at > this.from) this.parts.push(this.buf.toString('latin1', this.from, this.at));
    this.from = this.at;
  }

  private room(more: number): void {
    if (this.at + more <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + more, 64));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
}

/**
 * Builds a PackedChunk row by row: rows as tasks (`task`), or rows of the usual shape whose texts
 * the caller adds itself (`usualRow`, then their texts to `text`: the fast path of
 * jsonl-fast-rows.ts keeps them as bytes).
 */
export class PackedChunkWriter {
  readonly lens: Int32Array;
  readonly lines: Int32Array;
  readonly profiles: Int32Array;
  private readonly odd: Task[] = [];
  private n = 0;
  private readonly taskset: string;
  private readonly file: string;
  readonly text: ChunkText;

  constructor(rows: number, taskset: string, file: string, text: ChunkText = new JoinedText()) {
    this.text = text;
    this.lens = new Int32Array(rows * 3);
    this.lines = new Int32Array(rows);
    this.profiles = new Int32Array(rows * PACKED_PROFILE_INTS);
    this.taskset = taskset;
    this.file = file;
  }

  /** A row as a task: usual ones travel as their texts, others as objects. */
  task(t: Task): void {
    const i = this.n++;
    if (t.prompt !== undefined) packProfile(keptProfile(t, t.prompt), this.profiles, i * PACKED_PROFILE_INTS);
    else this.profiles[i * PACKED_PROFILE_INTS] = -1;
    if (!usual(t, this.taskset, this.file)) {
      this.lens[i * 3] = -1;
      this.odd.push(t);
      return;
    }
    this.lines[i] = t.source!.row;
    this.lens[i * 3] = t.id.length;
    this.text.add(t.id);
    this.lens[i * 3 + 1] = t.prompt === undefined ? -1 : t.prompt.length;
    if (t.prompt !== undefined) this.text.add(t.prompt);
    this.lens[i * 3 + 2] = t.answer === undefined ? -1 : t.answer.length;
    if (t.answer !== undefined) this.text.add(t.answer);
  }

  /** A usual row given by the lengths of its texts (−1: none) and its line; its profile goes at the index returned. */
  usualRow(idLen: number, promptLen: number, answerLen: number, line: number): number {
    const i = this.n++;
    this.lens[i * 3] = idLen;
    this.lens[i * 3 + 1] = promptLen;
    this.lens[i * 3 + 2] = answerLen;
    this.lines[i] = line;
    return i * PACKED_PROFILE_INTS;
  }

  finish(rows: Omit<ChunkRows, 'tasks'>): PackedChunk {
    return {
      lines: rows.lines,
      records: rows.records,
      readRejected: rows.readRejected,
      readBefore: rows.readBefore,
      mapRejected: rows.mapRejected,
      mapOrdinal: rows.mapOrdinal,
      mapMs: rows.mapMs,
      rejected: rows.rejected,
      rejectedOrdinal: rows.rejectedOrdinal,
      taskset: this.taskset,
      text: this.text.finish(),
      lens: this.lens,
      rows: this.lines,
      taskOrdinal: rows.taskOrdinal,
      profiles: this.profiles,
      odd: this.odd,
    };
  }
}

/** The worker's side: `rows` (local line numbers) packed for the main thread. */
export function packChunk(rows: ChunkRows, taskset: string, file: string): PackedChunk {
  const writer = new PackedChunkWriter(rows.tasks.length, taskset, file);
  for (const t of rows.tasks) writer.task(t);
  return writer.finish(rows);
}

/** The buffers of a packed chunk, to transfer instead of copy. */
export function packedBuffers(p: PackedChunk): ArrayBuffer[] {
  return [p.readBefore, p.mapOrdinal, p.rejectedOrdinal, p.lens, p.rows, p.taskOrdinal, p.profiles].map(
    (a) => a.buffer as ArrayBuffer,
  );
}

/**
 * The main thread's side: the chunk's rows as tasks again, numbered in the file (`lineOffset`: the
 * lines of the chunks before it), each usual row with its prompt's profile kept on it.
 */
export function unpackChunk(p: PackedChunk, file: string, lineOffset: number): ChunkRows {
  const n = p.taskOrdinal.length;
  const tasks: Task[] = new Array(n);
  const text = p.text;
  const lens = p.lens;
  let at = 0;
  let nextOdd = 0;
  for (let i = 0; i < n; i++) {
    const idLen = lens[i * 3]!;
    let t: Task;
    if (idLen < 0) {
      t = p.odd[nextOdd++]!;
      if (t.source) t.source = { ...t.source, row: t.source.row + lineOffset };
    } else {
      const id = text.slice(at, at + idLen);
      at += idLen;
      const pl = lens[i * 3 + 1]!;
      const al = lens[i * 3 + 2]!;
      const source = { file, row: p.rows[i]! + lineOffset };
      // One literal per combination keeps the mapping's key order (absent keys are absent).
      if (pl >= 0) {
        const prompt = text.slice(at, at + pl);
        at += pl;
        if (al >= 0) {
          const answer = text.slice(at, at + al);
          at += al;
          t = { id, taskset: p.taskset, prompt, answer, features: {}, meta: {}, source };
        } else t = { id, taskset: p.taskset, prompt, features: {}, meta: {}, source };
      } else if (al >= 0) {
        const answer = text.slice(at, at + al);
        at += al;
        t = { id, taskset: p.taskset, answer, features: {}, meta: {}, source };
      } else t = { id, taskset: p.taskset, features: {}, meta: {}, source };
    }
    if (t.prompt !== undefined) adoptProfile(t, t.prompt, p.profiles, i * PACKED_PROFILE_INTS);
    tasks[i] = t;
  }
  if (lineOffset !== 0) {
    for (const r of p.readRejected) r.row += lineOffset;
    for (const r of p.mapRejected) r.row += lineOffset;
    for (const r of p.rejected)
      if (r.row.source) r.row.source = { ...r.row.source, row: r.row.source.row + lineOffset };
  }
  return {
    lines: p.lines,
    records: p.records,
    readRejected: p.readRejected,
    readBefore: p.readBefore,
    mapRejected: p.mapRejected,
    mapOrdinal: p.mapOrdinal,
    mapMs: p.mapMs,
    tasks,
    taskOrdinal: p.taskOrdinal,
    rejected: p.rejected,
    rejectedOrdinal: p.rejectedOrdinal,
  };
}
