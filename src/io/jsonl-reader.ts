import { isUtf8 } from 'node:buffer';
import { truncatePayload } from '../core/rejected.ts';
import { BatchBuilder, drivePushParser } from './batch-builder.ts';
import { BoundedParts } from './bounded-parts.ts';
import { jsonKind, jsonTooDeep } from './json-depth.ts';
import type { RawBatch } from './raw-record.ts';
import { asBuffer, oversizedPayload, PAYLOAD_HEAD_BYTES, type TextReadContext } from './text-context.ts';

const STEP = 'read:jsonl';
const NO_BYTES = Buffer.alloc(0);

/**
 * JSON Lines: one JSON object per line. Bad lines (invalid JSON, non-objects, invalid UTF-8,
 * too long, too deep) become rejections with their 1-based line number; blank lines are skipped.
 *
 * Fast path: the complete lines of a chunk are checked for valid UTF-8 and decoded in one go;
 * only a chunk holding invalid bytes is split and checked line by line.
 */
export class JsonlParser {
  private readonly ctx: TextReadContext;
  private readonly out: BatchBuilder;
  private line = 0;
  /** Bytes of the line that is still open at the end of the last chunk. */
  private readonly pending: BoundedParts;

  constructor(ctx: TextReadContext, out: BatchBuilder) {
    this.ctx = ctx;
    this.out = out;
    this.pending = new BoundedParts(ctx.maxLineBytes);
  }

  /** Lines seen so far (blank and rejected ones included): the number of the last line. */
  get lines(): number {
    return this.line;
  }

  push(raw: Uint8Array): void {
    const chunk = asBuffer(raw);
    const firstNl = chunk.indexOf(10);
    if (firstNl === -1) {
      this.pending.keep(chunk);
      return;
    }
    let start = 0;
    if (!this.pending.empty) {
      this.finishCarried(chunk.subarray(0, firstNl));
      start = firstNl + 1;
    }
    const lastNl = chunk.lastIndexOf(10);
    if (lastNl >= start) this.completeLines(chunk, start, lastNl);
    if (lastNl + 1 < chunk.length) this.pending.keep(chunk.subarray(lastNl + 1));
  }

  end(): void {
    if (!this.pending.empty) this.finishCarried(NO_BYTES);
  }

  /** Lines in chunk[start, lastNl), each ended by a newline. */
  private completeLines(chunk: Buffer, start: number, lastNl: number): void {
    const region = chunk.subarray(start, lastNl);
    if (isUtf8(region)) {
      const text = region.toString('utf8');
      let p = 0;
      for (;;) {
        let q = text.indexOf('\n', p);
        if (q === -1) q = text.length;
        this.lineText(text.slice(p, q), true);
        if (q === text.length) return;
        p = q + 1;
      }
    }
    let p = start;
    while (p <= lastNl) {
      const q = chunk.indexOf(10, p);
      this.lineBytes(chunk.subarray(p, q));
      p = q + 1;
    }
  }

  private finishCarried(tail: Buffer): void {
    this.pending.keep(tail);
    const taken = this.pending.take();
    if (taken.overflow) {
      this.line++;
      this.rejectLong(taken.size, taken.head);
      return;
    }
    this.lineBytes(taken.bytes);
  }

  private lineBytes(buf: Buffer): void {
    if (buf.length > this.ctx.maxLineBytes) {
      this.line++;
      this.rejectLong(buf.length, buf);
      return;
    }
    if (isUtf8(buf)) {
      this.lineText(buf.toString('utf8'), false);
      return;
    }
    this.line++;
    this.reject('invalid UTF-8', buf.toString('utf8'));
  }

  /** One line without its newline. `fromChunk`: its byte length is still unchecked against maxLineBytes. */
  private lineText(s: string, fromChunk: boolean): void {
    const line = ++this.line;
    if (s.length === 0) return;
    if (s.charCodeAt(s.length - 1) === 13) s = s.slice(0, -1);
    if (s.charCodeAt(0) !== 123 /* { */) {
      // A BOM opens the file, or a file concatenated into this one.
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      if (isBlank(s)) return;
    }
    const max = this.ctx.maxLineBytes;
    if (fromChunk && s.length * 3 > max) {
      const bytes = Buffer.byteLength(s);
      if (bytes > max) {
        this.rejectLong(bytes, Buffer.from(s.slice(0, PAYLOAD_HEAD_BYTES)));
        return;
      }
    }
    let value: unknown;
    try {
      value = JSON.parse(s);
    } catch (err) {
      // SyntaxError for bad JSON; RangeError where an engine gives up on deep nesting.
      const msg = err instanceof RangeError ? 'nested too deeply' : (err as Error).message;
      this.reject(`invalid JSON: ${msg}`, s);
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.reject(`expected a JSON object, got ${jsonKind(value)}`, s);
      return;
    }
    if (jsonTooDeep(s, this.ctx.maxDepth)) {
      this.reject(`JSON nested deeper than ${this.ctx.maxDepth} levels (maxDepth)`, s);
      return;
    }
    this.out.add({ fields: value as Record<string, unknown>, source: { file: this.ctx.file, row: line } });
  }

  private rejectLong(bytes: number, head: Buffer): void {
    const reason = `line is ${bytes} bytes, over maxLineBytes (${this.ctx.maxLineBytes})`;
    this.out.reject({
      step: STEP,
      file: this.ctx.file,
      row: this.line,
      reason,
      payload: oversizedPayload(head, bytes),
    });
  }

  private reject(reason: string, text: string): void {
    this.out.reject({
      step: STEP,
      file: this.ctx.file,
      row: this.line,
      reason,
      payload: truncatePayload(text),
    });
  }
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** Parse a JSON Lines byte stream into batches of records. */
export async function* parseJsonl(
  bytes: AsyncIterable<Uint8Array>,
  ctx: TextReadContext,
): AsyncGenerator<RawBatch> {
  const out = new BatchBuilder(ctx.batchSize);
  yield* drivePushParser(bytes, new JsonlParser(ctx, out), out);
}
