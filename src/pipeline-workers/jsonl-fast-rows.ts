import { performance } from 'node:perf_hooks';
import type { Task } from '../core/task.ts';
import type { CompiledMapping } from '../io/mapping.ts';
import type { AsciiProfile } from '../operators/ascii-profile.ts';
import type { OperatorGraph } from '../operators/graph.ts';
import type { ProfilePass } from '../operators/operator.ts';
import type { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import {
  PACKED_PROFILE_INTS,
  packedDedupCheck,
  packedDedupKey,
  packProfile,
  scanAscii,
} from '../operators/task/text-profile.ts';
import { type FlatColumns, FlatLine, flatColumnsOf } from './flat-json-line.ts';
import { ByteText, type PackedChunk, PackedChunkWriter } from './jsonl-chunk-pack.ts';
import { type ChunkJob, type ChunkRows, chunkRowsAndLines } from './jsonl-chunk-rows.ts';

/**
 * A chunk of a JSONL file read without building its plain rows. Most lines of a task file are one
 * flat object of ASCII text that a chain of cleaning steps passes on untouched; for those the
 * worker's usual path (JSON.parse, the mapping, a task object, every step, then packing the texts
 * back into one string) cost ~6 µs a row, more than the main thread spent on the row. Here such a
 * line is read from its bytes (flat-json-line.ts), its prompt profiled once (text-profile.ts), and
 * every step asked through its profile pass (Operator.profilePass) whether it keeps the row as it
 * is. Each row that passes goes into the packed chunk as bytes. Every other line (non-ASCII, nested,
 * a row a step changes or drops, a bad line) goes through the usual path, `chunkRows`, over a copy
 * of the chunk in which the fast lines are blank, so line numbers, read rejections and step drops are
 * the same as ever. The two are merged by line: the packed chunk equals `packChunk(chunkRows(job))`,
 * and the graph's step totals are the same (tests/pipeline-workers/jsonl-fast-rows.test.ts).
 */
export class FastChunkReader {
  private readonly line: FlatLine;
  private readonly cols: FlatColumns;
  private readonly passes: ProfilePass[];
  private readonly mapping: CompiledMapping;
  private readonly graph: OperatorGraph<Task>;
  private readonly keyer: ExactDedupKeyer | null;
  private readonly taskset: string;
  private readonly fast = new FastRows();
  private slow: Buffer = Buffer.alloc(0);
  private text: Buffer = Buffer.alloc(0);

  /** A reader for this run, or null when its mapping, chain or dedup keys need the usual path for every row. */
  static of(
    mapping: CompiledMapping,
    graph: OperatorGraph<Task>,
    keyer: ExactDedupKeyer | null,
  ): FastChunkReader | null {
    const cols = flatColumnsOf(mapping.mapping);
    const passes = graph.profilePasses();
    if (cols === null || passes === null || (keyer !== null && !keyer.profiled)) return null;
    return new FastChunkReader(cols, passes, mapping, graph, keyer);
  }

  private constructor(
    cols: FlatColumns,
    passes: ProfilePass[],
    mapping: CompiledMapping,
    graph: OperatorGraph<Task>,
    keyer: ExactDedupKeyer | null,
  ) {
    this.line = new FlatLine(cols);
    this.cols = cols;
    this.passes = passes;
    this.mapping = mapping;
    this.graph = graph;
    this.keyer = keyer;
    this.taskset = mapping.mapping.taskset;
  }

  /**
   * The chunk packed as `packChunk(chunkRows(job))` packs it, with exact_dedup's key hashes of its
   * rows (null without a keyer). A job whose `maxDepth` refuses even a flat object reads the usual way.
   */
  async read(job: ChunkJob): Promise<FastChunk> {
    const t0 = performance.now();
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    const n = bytes.length;
    // At most one fast row a line.
    let lines = 1;
    for (let p = bytes.indexOf(10); p !== -1; p = bytes.indexOf(10, p + 1)) lines++;
    // Buffers are kept from chunk to chunk: fresh ones (~5 MB a chunk) made the worker's GC run
    // on external memory pressure.
    const fast = this.fast.reset(n, lines);
    // The lines the usual path reads: every byte of the chunk but the fast lines (left blank).
    if (this.slow.length < n) this.slow = Buffer.allocUnsafe(n);
    const slow = this.slow;
    let slowAt = 0;
    let slowLines = 0;
    let line = 0;
    for (let p = 0; p < n; ) {
      const nl = bytes.indexOf(10, p);
      const end = nl === -1 ? n : nl;
      line++;
      // The last line, with no newline after it, always reads the usual way (its length is checked there).
      if (
        nl !== -1 &&
        end - p <= job.maxLineBytes &&
        job.maxDepth >= 1 &&
        this.fastRow(bytes, p, end, line, fast)
      )
        slow[slowAt++] = 10;
      else {
        slowLines++;
        const to = nl === -1 ? n : nl + 1;
        bytes.copy(slow, slowAt, p, to);
        slowAt += to - p;
      }
      p = end + 1;
    }
    const fastMs = performance.now() - t0;
    this.graph.countProfilePassed(fast.count);
    const { rows, recordLines } =
      slowLines > 0
        ? await chunkRowsAndLines({ ...job, bytes: slow.subarray(0, slowAt) }, this.mapping, this.graph)
        : { rows: emptyRows(line), recordLines: new Int32Array(0) };
    if (rows.lines !== line)
      throw new Error(`fast chunk read: ${line} lines, the usual path counted ${rows.lines}`);
    return this.merge(fast, rows, recordLines, job.file, fastMs);
  }

  /** Read line [start, end) into `fast` when it maps to a usual task that every step passes untouched. */
  private fastRow(bytes: Buffer, start: number, end: number, lineNo: number, fast: FastRows): boolean {
    const l = this.line;
    if (!l.read(bytes, start, end) || l.idStart < 0 || l.idEnd === l.idStart || l.promptStart < 0)
      return false;
    const answered = l.answerStart >= 0;
    // A required answer column that is missing is the usual path's rejection to word.
    if (!answered && this.cols.answer !== null && !this.cols.answerOptional) return false;
    const out = fast.bytes;
    const from = fast.at;
    const idEnd = l.copy(l.idStart, l.idEnd, l.idEscaped, out, from);
    const promptEnd = idEnd < 0 ? -1 : l.copy(l.promptStart, l.promptEnd, l.promptEscaped, out, idEnd);
    const answerEnd =
      promptEnd < 0 || !answered
        ? promptEnd
        : l.copy(l.answerStart, l.answerEnd, l.answerEscaped, out, promptEnd);
    if (answerEnd < 0) return false;
    const prompt = out.toString('latin1', idEnd, promptEnd);
    if (!this.cols.allowEmpty && prompt.trim() === '') return false;
    const profile = scanAscii(prompt)!;
    for (const pass of this.passes) if (!pass.passes(profile)) return false;
    fast.add(
      lineNo,
      idEnd - from,
      promptEnd - idEnd,
      answered ? answerEnd - promptEnd : -1,
      answerEnd,
      profile,
    );
    return true;
  }

  /** The fast rows and the usual path's rows in line order, with record ordinals over both. */
  private merge(
    fast: FastRows,
    rows: ChunkRows,
    recordLines: Int32Array,
    file: string,
    fastMs: number,
  ): FastChunk {
    // Record ordinal of each line that holds a record (fast or not).
    const ordinalOf = new Int32Array(rows.lines + 1).fill(-1);
    let records = 0;
    for (let f = 0, s = 0; f < fast.count || s < recordLines.length; ) {
      const fl = f < fast.count ? fast.lines[f]! : Number.MAX_SAFE_INTEGER;
      const sl = s < recordLines.length ? recordLines[s]! : Number.MAX_SAFE_INTEGER;
      if (fl < sl) f++;
      else s++;
      ordinalOf[Math.min(fl, sl)] = records++;
    }
    const slowOrdinal = (k: number) => ordinalOf[recordLines[k]!]!;
    const total = fast.count + rows.tasks.length;
    const text = new ByteText(this.text);
    const writer = new PackedChunkWriter(total, this.taskset, file, text);
    const taskOrdinal = new Int32Array(total);
    const exactKeys = new Float64Array(total);
    const exactChecks = new Uint32Array(total);
    const slowKeys = this.keyer?.hashAll(rows.tasks);
    // Fast rows between two usual-path rows: their texts lie end to end in `fast.bytes`.
    let runFrom = -1;
    let textAt = 0;
    let f = 0;
    let s = 0;
    for (let i = 0; i < total; i++) {
      const fl = f < fast.count ? fast.lines[f]! : Number.MAX_SAFE_INTEGER;
      const task = rows.tasks[s];
      if (task === undefined || fl < task.source!.row) {
        if (runFrom < 0) runFrom = textAt;
        const at = writer.usualRow(fast.lens[f * 3]!, fast.lens[f * 3 + 1]!, fast.lens[f * 3 + 2]!, fl);
        writer.profiles.set(fast.profiles.subarray(f * INTS, (f + 1) * INTS), at);
        textAt = fast.ends[f]!;
        taskOrdinal[i] = ordinalOf[fl]!;
        exactKeys[i] = packedDedupKey(fast.profiles, f * INTS);
        exactChecks[i] = packedDedupCheck(fast.profiles, f * INTS);
        f++;
      } else {
        if (runFrom >= 0) text.bytes(fast.bytes, runFrom, textAt);
        runFrom = -1;
        writer.task(task);
        taskOrdinal[i] = slowOrdinal(rows.taskOrdinal[s]!);
        if (slowKeys) {
          exactKeys[i] = slowKeys.keys[s]!;
          exactChecks[i] = slowKeys.checks[s]!;
        }
        s++;
      }
    }
    if (runFrom >= 0) text.bytes(fast.bytes, runFrom, textAt);
    // Records on the lines before each line.
    const before = new Int32Array(rows.lines + 2);
    for (let l = 1; l <= rows.lines; l++) before[l + 1] = before[l]! + (ordinalOf[l]! >= 0 ? 1 : 0);
    const readBefore = Int32Array.from(rows.readRejected, (r) => before[r.row]!);
    const chunk = writer.finish({
      ...rows,
      records,
      readBefore,
      mapOrdinal: rows.mapOrdinal.map(slowOrdinal),
      mapMs: rows.mapMs + fastMs,
      rejectedOrdinal: rows.rejectedOrdinal.map(slowOrdinal),
      taskOrdinal,
    });
    this.text = text.buffer;
    return this.keyer === null
      ? { chunk, exactKeys: null, exactChecks: null }
      : { chunk, exactKeys, exactChecks };
  }
}

export interface FastChunk {
  chunk: PackedChunk;
  exactKeys: Float64Array | null;
  exactChecks: Uint32Array | null;
}

const INTS = PACKED_PROFILE_INTS;

/** A chunk with no records: only its line count. */
function emptyRows(lines: number): ChunkRows {
  const none = new Int32Array(0);
  return {
    lines,
    records: 0,
    readRejected: [],
    readBefore: none,
    mapRejected: [],
    mapOrdinal: none,
    mapMs: 0,
    tasks: [],
    taskOrdinal: none,
    rejected: [],
    rejectedOrdinal: none,
  };
}

/** The fast rows of a chunk: their texts (id, prompt, answer) end to end as bytes, lengths, lines, profiles. */
class FastRows {
  bytes: Buffer = Buffer.alloc(0);
  at = 0;
  count = 0;
  lines = new Int32Array(0);
  lens = new Int32Array(0);
  /** Where each row's texts end in `bytes`. */
  ends = new Int32Array(0);
  profiles = new Int32Array(0);

  /** Empty, with room for the rows of a chunk of `chunkBytes` bytes and `rows` lines (texts are never longer than their lines). */
  reset(chunkBytes: number, rows: number): this {
    this.at = 0;
    this.count = 0;
    if (this.bytes.length < chunkBytes) this.bytes = Buffer.allocUnsafe(chunkBytes);
    if (this.lines.length < rows) {
      this.lines = new Int32Array(rows);
      this.lens = new Int32Array(rows * 3);
      this.ends = new Int32Array(rows);
      this.profiles = new Int32Array(rows * INTS);
    }
    return this;
  }

  add(
    line: number,
    idLen: number,
    promptLen: number,
    answerLen: number,
    end: number,
    profile: AsciiProfile,
  ): void {
    const i = this.count++;
    this.lines[i] = line;
    this.lens[i * 3] = idLen;
    this.lens[i * 3 + 1] = promptLen;
    this.lens[i * 3 + 2] = answerLen;
    this.ends[i] = end;
    this.at = end;
    packProfile(profile, this.profiles, i * INTS);
  }
}
