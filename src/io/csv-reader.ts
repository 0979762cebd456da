import { isUtf8 } from 'node:buffer';
import { DataError } from '../core/errors.ts';
import { truncatePayload } from '../core/rejected.ts';
import { BatchBuilder, drivePushParser } from './batch-builder.ts';
import { BoundedParts } from './bounded-parts.ts';
import type { RawBatch } from './raw-record.ts';
import { asBuffer, oversizedPayload, type TextReadContext } from './text-context.ts';

const STEP = 'read:csv';
const LF = 10;
const CR = 13;
const QUOTE = 34;

export interface CsvReadContext extends TextReadContext {
  /** One ASCII character (`,` for .csv, tab for .tsv). */
  delimiter: string;
  /** First record names the columns; without it columns are `col1`, `col2`, … */
  header: boolean;
  /** Turn number text into numbers and `true`/`false` into booleans, when lossless (see inferCsvValue). */
  inferTypes: boolean;
}

// Scanner states: where the byte being read sits in a record.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const AFTER_QUOTE = 3;

/**
 * A streaming RFC 4180 reader. A byte-level scanner finds where records end (a newline outside
 * quotes) and counts physical lines; each complete record is then decoded and split into fields.
 * Quote, delimiter and newline bytes never occur inside multi-byte UTF-8 sequences, so scanning
 * bytes is safe. Rows are the 1-based physical line where a record starts.
 */
export class CsvParser {
  private readonly ctx: CsvReadContext;
  private readonly out: BatchBuilder;
  private readonly delim: number;
  private state = FIELD_START;
  private line = 1;
  private recordLine = 1;
  /** Bytes of the record that is still open at the end of the last chunk. */
  private readonly parts: BoundedParts;
  private first = true;
  private columns: string[] | undefined;

  constructor(ctx: CsvReadContext, out: BatchBuilder) {
    this.ctx = ctx;
    this.out = out;
    this.delim = ctx.delimiter.charCodeAt(0);
    this.parts = new BoundedParts(ctx.maxLineBytes);
  }

  push(raw: Uint8Array): void {
    const chunk = asBuffer(raw);
    const n = chunk.length;
    const delim = this.delim;
    let segStart = 0;
    let state = this.state;
    for (let i = 0; i < n; i++) {
      if (state === QUOTED) {
        const q = chunk.indexOf(QUOTE, i);
        const stop = q === -1 ? n : q;
        for (let nl = chunk.indexOf(LF, i); nl !== -1 && nl < stop; nl = chunk.indexOf(LF, nl + 1))
          this.line++;
        if (q === -1) break;
        i = q;
        state = AFTER_QUOTE;
        continue;
      }
      const b = chunk[i]!;
      if (b === LF) {
        this.line++;
        this.state = FIELD_START;
        this.record(chunk, segStart, i);
        segStart = i + 1;
        this.recordLine = this.line;
        state = FIELD_START;
        continue;
      }
      if (state === FIELD_START) state = b === QUOTE ? QUOTED : b === delim ? FIELD_START : UNQUOTED;
      else if (state === UNQUOTED) {
        if (b === delim) state = FIELD_START;
      } else if (b === QUOTE) state = QUOTED;
      else if (b === delim) state = FIELD_START;
      else if (b !== CR) state = UNQUOTED;
    }
    this.state = state;
    if (segStart < n) this.parts.keep(chunk.subarray(segStart));
  }

  end(): void {
    if (this.state === QUOTED) {
      if (this.columns === undefined && this.ctx.header) {
        throw new DataError({
          file: this.ctx.file,
          row: this.recordLine,
          message: 'cannot read the header row: unterminated quoted field (the file ends inside quotes)',
        });
      }
      const text = this.parts.head();
      this.reject(
        this.recordLine,
        'unterminated quoted field (the file ends inside quotes)',
        text.toString(),
      );
      return;
    }
    if (!this.parts.empty) this.record(Buffer.alloc(0), 0, 0);
  }

  private record(chunk: Buffer, start: number, end: number): void {
    const row = this.recordLine;
    let buf: Buffer;
    if (this.parts.empty) {
      buf = chunk.subarray(start, end);
      if (buf.length > this.ctx.maxLineBytes) {
        this.rejectLong(row, buf.length, buf);
        return;
      }
    } else {
      this.parts.keep(chunk.subarray(start, end));
      const taken = this.parts.take();
      if (taken.overflow) {
        this.rejectLong(row, taken.size, taken.head);
        return;
      }
      buf = taken.bytes;
    }
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    if (this.first && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf)
      buf = buf.subarray(3);
    if (buf.length === 0) return; // blank line
    this.first = false;
    if (!isUtf8(buf)) {
      if (this.columns === undefined && this.ctx.header) {
        throw new DataError({ file: this.ctx.file, row, message: 'header row is not valid UTF-8' });
      }
      this.reject(row, 'invalid UTF-8', buf.toString('utf8'));
      return;
    }
    const text = buf.toString('utf8');
    const fields = splitCsvRecord(text, this.ctx.delimiter);
    if (typeof fields === 'string') {
      if (this.columns === undefined && this.ctx.header) {
        throw new DataError({ file: this.ctx.file, row, message: `cannot read the header row: ${fields}` });
      }
      this.reject(row, fields, text);
      return;
    }
    if (this.columns === undefined) {
      if (this.ctx.header) {
        this.columns = headerNames(fields, this.ctx.file);
        return;
      }
      this.columns = fields.map((_, j) => `col${j + 1}`);
    }
    const columns = this.columns;
    if (fields.length !== columns.length) {
      const what = this.ctx.header ? 'header has' : 'first row has';
      this.reject(row, `row has ${fields.length} fields, ${what} ${columns.length}`, text);
      return;
    }
    const obj: Record<string, unknown> = {};
    const infer = this.ctx.inferTypes;
    for (let j = 0; j < columns.length; j++) obj[columns[j]!] = infer ? inferCsvValue(fields[j]!) : fields[j];
    this.out.add({ fields: obj, source: { file: this.ctx.file, row } });
  }

  private rejectLong(row: number, bytes: number, head: Buffer): void {
    const reason = `record is ${bytes} bytes, over maxLineBytes (${this.ctx.maxLineBytes})`;
    this.out.reject({ step: STEP, file: this.ctx.file, row, reason, payload: oversizedPayload(head, bytes) });
  }

  private reject(row: number, reason: string, text: string): void {
    this.out.reject({ step: STEP, file: this.ctx.file, row, reason, payload: truncatePayload(text) });
  }
}

/** Header cells become column names; empty cells are named `col<N>`, duplicates are an error. */
function headerNames(cells: string[], file: string): string[] {
  const names = cells.map((c, j) => (c.length === 0 ? `col${j + 1}` : c));
  const seen = new Map<string, number>();
  names.forEach((name, j) => {
    const before = seen.get(name);
    if (before !== undefined) {
      throw new DataError({
        file,
        message: `duplicate column name '${name}' in the header (columns ${before + 1} and ${j + 1})`,
      });
    }
    seen.set(name, j);
  });
  return names;
}

/**
 * Split one record (without its line ending) into fields. Returns the fields, or a reason when
 * the quoting is malformed. Quoted fields keep embedded delimiters and newlines; `""` is a quote.
 */
export function splitCsvRecord(s: string, delimiter: string): string[] | string {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  for (;;) {
    if (i < n && s.charCodeAt(i) === QUOTE) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = s.indexOf('"', j);
        if (q === -1) return `unterminated quoted field ${out.length + 1}`;
        if (s.charCodeAt(q + 1) === QUOTE) {
          value += s.slice(j, q + 1);
          j = q + 2;
          continue;
        }
        value += s.slice(j, q);
        i = q + 1;
        break;
      }
      out.push(value);
      if (i === n) return out;
      if (s[i] !== delimiter) return `malformed quotes: text after the closing quote in field ${out.length}`;
      i++;
    } else {
      const k = s.indexOf(delimiter, i);
      if (k === -1) {
        out.push(s.slice(i));
        return out;
      }
      out.push(s.slice(i, k));
      i = k + 1;
    }
  }
}

/**
 * Number text becomes a number and `true`/`false` booleans, only when nothing is lost: the number
 * must print back as the same text, so `007`, `1.50`, `1e3` and 20-digit ids stay strings.
 */
export function inferCsvValue(s: string): unknown {
  if (s.length === 0) return s;
  const c = s.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 45 /* - */) {
    const n = Number(s);
    return Number.isFinite(n) && String(n) === s ? n : s;
  }
  if (s === 'true') return true;
  if (s === 'false') return false;
  return s;
}

/** Parse a CSV/TSV byte stream into batches of records. */
export async function* parseCsv(
  bytes: AsyncIterable<Uint8Array>,
  ctx: CsvReadContext,
): AsyncGenerator<RawBatch> {
  const out = new BatchBuilder(ctx.batchSize);
  yield* drivePushParser(bytes, new CsvParser(ctx, out), out);
}
