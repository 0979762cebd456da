// The row store: a row-major copy of each experience's payload (id, seq, response, prompt, tokens,
// logprobs) beside the LanceDB experience table, so that `sample` reads a scattered row with one
// `pread` instead of one Lance page decode per column. Measured on a 1M-row table: Lance takes 256
// scattered rows × 4 payload columns in ~13–16 ms (~15 µs per row and column, CPU-bound inside
// Lance, the same under file format 2.0, 2.1 and 2.2, by offsets or by row id); the row store reads
// them in ~1 ms. It is a cache, never the source of truth: a record is used only when its id and seq
// equal the index's, and the row's existence (and, for predicted row ids, its identity) is still
// checked against the table by the caller. Files live inside the table's folder, so dropping the
// table removes them. Nothing is fsynced: a torn or missing record only sends that row to Lance.
// Each record carries a CRC-32 of all its other bytes, so a record whose tail was lost in an OS
// crash, or overwritten by another process appending to the same table, is never served.
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  write,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type * as arrow from 'apache-arrow';
import { copy, listCol, span, utf8Col } from './payload-columns.ts';

export const ROW_STORE_DATA = 'winnow-rows.bin';
export const ROW_STORE_INDEX = 'winnow-rows.idx';
/**
 * Record header: seq f64, then id, response, prompt byte lengths (prompt −1: null), token and
 * logprob counts, then the CRC-32 of the record's other bytes.
 */
const CRC_AT = 8 + 4 * 5;
const HEAD = CRC_AT + 4;
/** Index entry: seq, offset, length (f64 each). */
const ENTRY = 24;

/** `WINNOW_ROW_STORE=off` takes every payload from LanceDB (benchmarks compare the two). */
export function rowStoreMode(): 'on' | 'off' {
  return process.env.WINNOW_ROW_STORE === 'off' ? 'off' : 'on';
}

/** A row's payload as the table stores it. */
export interface RowPayload {
  id: string;
  seq: number;
  response: string;
  prompt: string | null;
  tokens: number[];
  logprobs: number[];
}

export class PayloadRows {
  private seqs = new Float64Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Float64Array(1024);
  private count = 0;
  private sorted = true;
  private dataEnd: number;
  private indexEnd: number;
  private dataFd: number;
  private indexFd: number;
  private shrinking = false;
  private closed = false;
  /** The chain of background writes (each append's data, then its index entries). */
  private pending: Promise<void> = Promise.resolve();

  private readonly dir: string;

  private constructor(dir: string, dataFd: number, indexFd: number) {
    this.dir = dir;
    this.dataFd = dataFd;
    this.indexFd = indexFd;
    this.dataEnd = fstatSync(dataFd).size;
    const size = fstatSync(indexFd).size;
    // A torn last entry (killed mid-append) is ignored and overwritten by the next append.
    this.indexEnd = size - (size % ENTRY);
    if (this.indexEnd > 0) {
      const buf = Buffer.alloc(this.indexEnd);
      readSync(indexFd, buf, 0, this.indexEnd, 0);
      for (let at = 0; at < this.indexEnd; at += ENTRY) {
        const offset = buf.readDoubleLE(at + 8);
        const length = buf.readDoubleLE(at + 16);
        if (offset + length <= this.dataEnd) this.push(buf.readDoubleLE(at), offset, length);
      }
    }
  }

  /** Records before a store is worth rewriting without its evicted rows (tests lower it). */
  static shrinkMin = 65_536;
  /** Writes still under way of stores closed in this process, by folder (a reopen waits for them). */
  private static readonly closing = new Map<string, Promise<void>>();

  /**
   * Open (or start) the row store of the table stored in `tableDir`, once the writes of a store
   * this process closed on it are done; null when that folder does not exist.
   */
  static async open(tableDir: string): Promise<PayloadRows | null> {
    await PayloadRows.closing.get(tableDir);
    if (!existsSync(tableDir)) return null;
    const data = openSync(join(tableDir, ROW_STORE_DATA), 'a+');
    const index = openSync(join(tableDir, ROW_STORE_INDEX), 'a+');
    closeSync(data);
    closeSync(index);
    return new PayloadRows(
      tableDir,
      openSync(join(tableDir, ROW_STORE_DATA), 'r+'),
      openSync(join(tableDir, ROW_STORE_INDEX), 'r+'),
    );
  }

  /** Whether a table with this schema can keep its payload here (an older text layout cannot). */
  static fits(schema: arrow.Schema): boolean {
    const type = (name: string) => schema.fields.find((f) => f.name === name)?.type;
    const utf8 = (name: string) => String(type(name)) === 'Utf8';
    const list = (name: string, of: string) => String(type(name)) === `List<${of}>`;
    return (
      utf8('id') &&
      utf8('response') &&
      utf8('prompt') &&
      list('tokens', 'Int32') &&
      list('logprobs', 'Float32') &&
      ['Float64', 'Int64', 'Int32'].includes(String(type('seq')))
    );
  }

  /** Copy the payload of every row of `table` (as it is about to be committed). */
  append(table: arrow.Table): void {
    if (this.closed) return;
    for (const batch of table.batches) this.appendBatch(batch);
  }

  private appendBatch(batch: arrow.RecordBatch): void {
    const n = batch.numRows;
    if (n === 0) return;
    const id = utf8Col(batch, 'id');
    const response = utf8Col(batch, 'response');
    const prompt = utf8Col(batch, 'prompt');
    const tokens = listCol(batch, 'tokens');
    const logprobs = listCol(batch, 'logprobs');
    const seqCol = batch.getChild('seq')?.toArray() as ArrayLike<number | bigint> | undefined;
    if (!id || !response || !prompt || !tokens || !logprobs || !seqCol) return;
    const seqs = new Float64Array(n);
    const sizes = new Float64Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) {
      seqs[i] = Number(seqCol[i]);
      sizes[i] =
        HEAD +
        span(id.offsets, i) +
        span(response.offsets, i) +
        (prompt.valid(i) ? span(prompt.offsets, i) : 0) +
        4 * span(tokens.offsets, i) +
        4 * span(logprobs.offsets, i);
      total += sizes[i]!;
    }
    const out = Buffer.allocUnsafe(total);
    const entries = Buffer.allocUnsafe(n * ENTRY);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const start = at;
      const promptNull = !prompt.valid(i);
      out.writeDoubleLE(seqs[i]!, at);
      out.writeUInt32LE(span(id.offsets, i), at + 8);
      out.writeUInt32LE(span(response.offsets, i), at + 12);
      out.writeInt32LE(promptNull ? -1 : span(prompt.offsets, i), at + 16);
      out.writeUInt32LE(span(tokens.offsets, i), at + 20);
      out.writeUInt32LE(span(logprobs.offsets, i), at + 24);
      at += HEAD;
      at = copy(out, at, id.bytes, id.offsets[i]!, id.offsets[i + 1]!);
      at = copy(out, at, response.bytes, response.offsets[i]!, response.offsets[i + 1]!);
      if (!promptNull) at = copy(out, at, prompt.bytes, prompt.offsets[i]!, prompt.offsets[i + 1]!);
      at = copy(out, at, tokens.values, 4 * tokens.offsets[i]!, 4 * tokens.offsets[i + 1]!);
      at = copy(out, at, logprobs.values, 4 * logprobs.offsets[i]!, 4 * logprobs.offsets[i + 1]!);
      out.writeUInt32LE(recordCrc(out.subarray(start, at)), start + CRC_AT);
      entries.writeDoubleLE(seqs[i]!, i * ENTRY);
      entries.writeDoubleLE(start, i * ENTRY + 8); // made absolute when written
      entries.writeDoubleLE(at - start, i * ENTRY + 16);
    }
    // Data first, then the entries naming it: a kill in between leaves only unreferenced bytes. The
    // writes run on libuv's pool, in order (positions are taken when a write runs, after any
    // rewrite queued before it), and the rows become readable here once both are done; until then
    // their samples take them from LanceDB.
    this.pending = this.pending.then(async () => {
      if (this.closed) return;
      const dataAt = this.dataEnd;
      const indexAt = this.indexEnd;
      this.dataEnd += total;
      this.indexEnd += n * ENTRY;
      for (let i = 0; i < n; i++)
        entries.writeDoubleLE(dataAt + entries.readDoubleLE(i * ENTRY + 8), i * ENTRY + 8);
      if (!(await writeAt(this.dataFd, out, dataAt))) return;
      if (!(await writeAt(this.indexFd, entries, indexAt))) return;
      for (let i = 0; i < n; i++) this.push(seqs[i]!, entries.readDoubleLE(i * ENTRY + 8), sizes[i]!);
    });
  }

  /** The stored payload of each seq (null: not here, or the record is not whole). */
  read(seqs: readonly number[]): (RowPayload | null)[] {
    const out: (RowPayload | null)[] = seqs.map(() => null);
    if (this.closed) return out;
    if (!this.sorted) this.sortEntries();
    const found: { at: number; k: number }[] = [];
    seqs.forEach((seq, at) => {
      const k = this.find(seq);
      if (k >= 0) found.push({ at, k });
    });
    // Records written one after another (fifo/lifo samples of neighbouring rows) are read in one
    // call; scattered ones cost one pread each.
    found.sort((x, y) => this.offsets[x.k]! - this.offsets[y.k]!);
    for (let i = 0; i < found.length; ) {
      let j = i + 1;
      let end = this.offsets[found[i]!.k]! + this.lengths[found[i]!.k]!;
      while (
        j < found.length &&
        this.offsets[found[j]!.k] === end &&
        end - this.offsets[found[i]!.k]! < 1 << 20
      ) {
        end += this.lengths[found[j]!.k]!;
        j++;
      }
      const start = this.offsets[found[i]!.k]!;
      const buf = Buffer.allocUnsafe(end - start);
      if (readSync(this.dataFd, buf, 0, buf.length, start) === buf.length)
        for (let m = i; m < j; m++) {
          const { at, k } = found[m]!;
          const from = this.offsets[k]! - start;
          out[at] = decodeRecord(buf.subarray(from, from + this.lengths[k]!), seqs[at]!);
        }
      i = j;
    }
    return out;
  }

  /**
   * Once at least 3/4 of the records belong to rows no longer in the buffer (evicted beyond
   * `capacity`) and there are at least `shrinkMin` records, rewrite both files with only the rows
   * of `liveSeqs` (temp files + rename, in the write chain). A kill mid-way leaves the old files, or
   * new data under an old index whose entries then fail their seq/length check (those rows go to
   * LanceDB).
   */
  shrink(liveCount: number, liveSeqs: () => number[]): void {
    if (this.closed || this.shrinking || this.count < PayloadRows.shrinkMin || liveCount * 4 > this.count)
      return;
    const seqs = liveSeqs();
    this.shrinking = true;
    this.pending = this.pending
      .then(() => this.rewrite(seqs))
      .catch(() => {}) // a cache: a failed rewrite leaves the old files in use
      .finally(() => {
        this.shrinking = false;
      });
  }

  private rewrite(seqs: number[]): void {
    if (this.closed) return;
    if (!this.sorted) this.sortEntries();
    const kept = this.readRaw(seqs);
    const data = Buffer.concat(kept.map((k) => k.buf));
    const entries = Buffer.alloc(kept.length * ENTRY);
    let at = 0;
    kept.forEach((k, i) => {
      entries.writeDoubleLE(k.seq, i * ENTRY);
      entries.writeDoubleLE(at, i * ENTRY + 8);
      entries.writeDoubleLE(k.buf.length, i * ENTRY + 16);
      at += k.buf.length;
    });
    const dataPath = join(this.dir, ROW_STORE_DATA);
    const indexPath = join(this.dir, ROW_STORE_INDEX);
    writeFileSync(`${dataPath}.tmp`, data);
    writeFileSync(`${indexPath}.tmp`, entries);
    renameSync(`${dataPath}.tmp`, dataPath);
    renameSync(`${indexPath}.tmp`, indexPath);
    closeSync(this.dataFd);
    closeSync(this.indexFd);
    this.dataFd = openSync(dataPath, 'r+');
    this.indexFd = openSync(indexPath, 'r+');
    this.count = 0;
    this.sorted = true;
    for (let i = 0; i < kept.length; i++)
      this.push(kept[i]!.seq, entries.readDoubleLE(i * ENTRY + 8), kept[i]!.buf.length);
    this.dataEnd = data.length;
    this.indexEnd = entries.length;
  }

  /** Whole records (verified) of `seqs`, in seq order. */
  private readRaw(seqs: number[]): { seq: number; buf: Buffer }[] {
    const out: { seq: number; buf: Buffer }[] = [];
    for (const seq of [...seqs].sort((a, b) => a - b)) {
      const k = this.find(seq);
      if (k < 0) continue;
      const buf = Buffer.allocUnsafe(this.lengths[k]!);
      if (readSync(this.dataFd, buf, 0, buf.length, this.offsets[k]!) !== buf.length) continue;
      if (decodeRecord(buf, seq)) out.push({ seq, buf });
    }
    return out;
  }

  /** Resolves once every append so far is written (tests, benchmarks). */
  flushed(): Promise<void> {
    return this.pending;
  }

  /** Close the files once the writes under way are done. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const done = this.pending.finally(() => {
      closeSync(this.dataFd);
      closeSync(this.indexFd);
      if (PayloadRows.closing.get(this.dir) === done) PayloadRows.closing.delete(this.dir);
    });
    this.pending = done;
    PayloadRows.closing.set(this.dir, done);
  }

  private push(seq: number, offset: number, length: number): void {
    if (this.count === this.seqs.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.seqs = grow(this.seqs);
      this.offsets = grow(this.offsets);
      this.lengths = grow(this.lengths);
    }
    // A seq written again (after a failed commit) must win over the older record: sort keeps order.
    if (this.count > 0 && seq <= this.seqs[this.count - 1]!) this.sorted = false;
    this.seqs[this.count] = seq;
    this.offsets[this.count] = offset;
    this.lengths[this.count] = length;
    this.count++;
  }

  /** Sort entries by seq (stable: the last record of a seq stays last) and keep the last of each seq. */
  private sortEntries(): void {
    const order = Array.from({ length: this.count }, (_, k) => k);
    order.sort((a, b) => this.seqs[a]! - this.seqs[b]! || a - b);
    const keep = order.filter((k, j) => j + 1 === order.length || this.seqs[order[j + 1]!] !== this.seqs[k]);
    const pick = (a: Float64Array) => Float64Array.from(keep, (k) => a[k]!);
    [this.seqs, this.offsets, this.lengths] = [pick(this.seqs), pick(this.offsets), pick(this.lengths)];
    this.count = keep.length;
    this.sorted = true;
  }

  /** Index of the entry for `seq`, or −1 (binary search; the last of equal seqs). */
  private find(seq: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.seqs[mid]!;
      if (s === seq) return mid;
      if (s < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

function decodeRecord(buf: Buffer, seq: number): RowPayload | null {
  if (buf.length < HEAD || buf.readDoubleLE(0) !== seq) return null;
  const idLen = buf.readUInt32LE(8);
  const respLen = buf.readUInt32LE(12);
  const promptLen = buf.readInt32LE(16);
  const nTok = buf.readUInt32LE(20);
  const nLp = buf.readUInt32LE(24);
  if (HEAD + idLen + respLen + Math.max(0, promptLen) + 4 * (nTok + nLp) !== buf.length) return null;
  if (buf.readUInt32LE(CRC_AT) !== recordCrc(buf)) return null;
  const id = buf.toString('utf8', HEAD, HEAD + idLen);
  let at = HEAD + idLen;
  const response = buf.toString('utf8', at, at + respLen);
  at += respLen;
  const prompt = promptLen < 0 ? null : buf.toString('utf8', at, at + promptLen);
  at += Math.max(0, promptLen);
  const tokens = new Array<number>(nTok);
  for (let j = 0; j < nTok; j++, at += 4) tokens[j] = buf.readInt32LE(at);
  const logprobs = new Array<number>(nLp);
  for (let j = 0; j < nLp; j++, at += 4) logprobs[j] = buf.readFloatLE(at);
  return { id, seq, response, prompt, tokens, logprobs };
}

/** CRC-32 of a whole record except its own CRC field. */
function recordCrc(record: Buffer): number {
  return crc32(record.subarray(HEAD), crc32(record.subarray(0, CRC_AT)));
}

/** Write all of `buf` at `position` off the main thread; resolves false on an error (a cache may miss). */
function writeAt(fd: number, buf: Buffer, position: number): Promise<boolean> {
  return new Promise((done) => {
    const step = (from: number) =>
      write(fd, buf, from, buf.length - from, position + from, (err, n) => {
        if (err) done(false);
        else if (from + n < buf.length) step(from + n);
        else done(true);
      });
    step(0);
  });
}
