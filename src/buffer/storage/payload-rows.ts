// The row store: a row-major copy of each experience's payload (id, seq, response, prompt, tokens,
// logprobs) beside the LanceDB experience table, so that `sample` reads a scattered row with one
// `pread` instead of one Lance page decode per column. Measured on a 1M-row table: Lance takes 256
// scattered rows × 4 payload columns in ~13–16 ms (~15 µs per row and column, CPU-bound inside
// Lance, the same under file format 2.0, 2.1 and 2.2, by offsets or by row id); the row store reads
// them in ~1 ms. It is a cache, never the source of truth: a record is used only when its id and seq
// equal the index's, and the row's existence (and, for predicted row ids, its identity) is still
// checked against the table by the caller. Files live inside the table's folder, so dropping the
// table removes them. Nothing is fsynced: a torn or missing record only sends that row to Lance.
// Appends are written at once (while LanceDB writes the commit) from buffers reused across batches;
// only behind a queued rewrite do they wait in the write chain (libuv's pool).
// Each record carries a CRC-32 of all its other bytes, so a record whose tail was lost in an OS
// crash, or overwritten by another process appending to the same table, is never served.
import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as arrow from 'apache-arrow';
import {
  decodeRecord,
  ENTRY,
  fillRecords,
  type RowPayload,
  recordLayout,
  writeAll,
  writeAt,
} from './row-record.ts';

export type { RowPayload } from './row-record.ts';

export const ROW_STORE_DATA = 'winnow-rows.bin';
export const ROW_STORE_INDEX = 'winnow-rows.idx';
/** The largest write buffer a row store keeps from one batch to the next. */
const SCRATCH_MAX = 8 << 20;

/** `WINNOW_ROW_STORE=off` takes every payload from LanceDB (benchmarks compare the two). */
export function rowStoreMode(): 'on' | 'off' {
  return process.env.WINNOW_ROW_STORE === 'off' ? 'off' : 'on';
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
    const layout = recordLayout(batch);
    if (layout === null) return;
    const { seqs, sizes, total } = layout;
    // With nothing else in the write chain the records go out at once, from buffers reused from one
    // batch to the next: a fresh megabyte per batch kept alive until a background write finished
    // made V8 run full collections of the whole heap far more often (docs/performance.md).
    const now = this.chainIdle && !this.shrinking;
    const out = now ? this.scratch('data', total) : Buffer.allocUnsafe(total);
    const entries = now ? this.scratch('entries', n * ENTRY) : Buffer.allocUnsafe(n * ENTRY);
    fillRecords(layout, out, entries);
    // Data first, then the entries naming it: a kill in between leaves only unreferenced bytes.
    if (now) {
      this.writeNow(out.subarray(0, total), entries.subarray(0, n * ENTRY), seqs, sizes);
      return;
    }
    // Else the writes run on libuv's pool, in order (positions are taken when a write runs, after
    // any rewrite queued before it), and the rows become readable here once both are done; until
    // then their samples take them from LanceDB.
    this.chained++;
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
    const done = () => {
      this.chained--;
    };
    this.pending.then(done, done);
  }

  /** Appends waiting in the write chain (while any do, later ones queue behind them, in order). */
  private chained = 0;
  private readonly buffers = { data: Buffer.alloc(0), entries: Buffer.alloc(0) };

  private get chainIdle(): boolean {
    return this.chained === 0;
  }

  /** A buffer of at least `size` bytes, kept for the next batch up to SCRATCH_MAX bytes. */
  private scratch(which: 'data' | 'entries', size: number): Buffer {
    if (size > SCRATCH_MAX) return Buffer.allocUnsafe(size);
    if (this.buffers[which].length < size)
      this.buffers[which] = Buffer.allocUnsafe(
        Math.min(SCRATCH_MAX, Math.max(size, 2 * this.buffers[which].length)),
      );
    return this.buffers[which];
  }

  /** Write one batch's records and entries now, at the end of both files; a failure only skips them. */
  private writeNow(data: Buffer, entries: Buffer, seqs: Float64Array, sizes: Float64Array): void {
    const dataAt = this.dataEnd;
    const indexAt = this.indexEnd;
    const n = seqs.length;
    for (let i = 0; i < n; i++)
      entries.writeDoubleLE(dataAt + entries.readDoubleLE(i * ENTRY + 8), i * ENTRY + 8);
    try {
      writeAll(this.dataFd, data, dataAt);
      this.dataEnd += data.length;
      writeAll(this.indexFd, entries, indexAt);
      this.indexEnd += entries.length;
    } catch {
      return; // a cache: these rows' samples read them from LanceDB
    }
    for (let i = 0; i < n; i++) this.push(seqs[i]!, entries.readDoubleLE(i * ENTRY + 8), sizes[i]!);
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
