import { isUtf8 } from 'node:buffer';
import { DataError } from '../core/errors.ts';
import { truncatePayload } from '../core/rejected.ts';
import { BatchBuilder } from './batch-builder.ts';
import { BoundedParts } from './bounded-parts.ts';
import { prepend } from './byte-source.ts';
import { jsonKind, jsonTooDeep } from './json-depth.ts';
import { JsonlParser } from './jsonl-reader.ts';
import type { RawBatch } from './raw-record.ts';
import { asBuffer, oversizedPayload, type TextReadContext } from './text-context.ts';

const STEP = 'read:json';
const QUOTE = 34;
const BACKSLASH = 92;

export interface JsonReadContext extends TextReadContext {
  /** Read the array under this top-level key of an object (e.g. `data` for `{"data": [...]}`). */
  jsonPath?: string | undefined;
}

type Phase = 'start' | 'object' | 'array' | 'after' | 'done';

/**
 * A JSON file holding one top-level array of objects (or, with `jsonPath`, an object holding one).
 * An incremental scanner tracks strings and bracket depth to find where each top-level element
 * starts and ends, so only one element at a time is a string; each is parsed with JSON.parse.
 * Rows are 0-based element indices.
 */
export class JsonArrayParser {
  private readonly ctx: JsonReadContext;
  private readonly out: BatchBuilder;
  private phase: Phase = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Depth inside the target array, where its elements live (1, or 2 under `jsonPath`). */
  private arrayDepth = 1;
  private index = 0;
  private inElement = false;
  private elementStart = 0;
  /** Bytes of the open element that will not be in the current chunk any more. */
  private readonly parts: BoundedParts;
  private trailingReported = false;
  private firstByte = true;
  // jsonPath search inside the top-level object
  private expectKey = false;
  private capturingKey = false;
  private keyStart = 0;
  private keyParts: Buffer[] = [];
  private lastKey = '';
  private armed = false;
  private readonly keysSeen: string[] = [];

  constructor(ctx: JsonReadContext, out: BatchBuilder) {
    this.ctx = ctx;
    this.out = out;
    this.parts = new BoundedParts(ctx.maxLineBytes);
  }

  push(raw: Uint8Array): void {
    const chunk = asBuffer(raw);
    const n = chunk.length;
    let i = 0;
    if (this.firstByte && n > 0) {
      this.firstByte = false;
      if (n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    this.elementStart = 0;
    this.keyStart = 0;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
        }
        for (; i < n; i++) {
          const c = chunk[i];
          if (c === BACKSLASH) {
            if (i + 1 >= n) this.escaped = true;
            i++;
          } else if (c === QUOTE) break;
        }
        if (i >= n) break;
        this.inString = false;
        if (this.capturingKey) this.endKey(chunk, i);
        i++;
        continue;
      }
      const b = chunk[i]!;
      switch (this.phase) {
        case 'array':
          this.arrayByte(chunk, i, b);
          break;
        case 'start':
          this.startByte(b);
          break;
        case 'object':
          this.objectByte(i, b);
          break;
        case 'after':
          if (!isSpace(b) && !this.trailingReported) {
            this.trailingReported = true;
            this.reject(
              -1,
              'unexpected text after the top-level array',
              chunk.subarray(i, i + 200).toString(),
            );
          }
          break;
        case 'done':
          break;
      }
      i++;
    }
    if (this.inElement) this.parts.keep(chunk.subarray(this.elementStart));
    if (this.capturingKey && this.keyParts.length < 64) this.keyParts.push(chunk.subarray(this.keyStart));
  }

  end(): void {
    if (this.phase === 'array') {
      if (this.inElement) {
        this.reject(this.index, 'file ends inside this element (truncated file?)', this.elementText());
      } else {
        this.reject(-1, 'file ends before the top-level array is closed (truncated file?)', '');
      }
    } else if (this.phase === 'object') {
      throw this.missingKey('file ends inside the top-level object');
    }
  }

  private startByte(b: number): void {
    if (isSpace(b)) return;
    if (b === 91 /* [ */) {
      this.phase = 'array';
      this.depth = 1;
      this.arrayDepth = 1;
      return;
    }
    if (b === 123 /* { */ && this.ctx.jsonPath !== undefined) {
      this.phase = 'object';
      this.depth = 1;
      this.expectKey = true;
      return;
    }
    throw new DataError({
      file: this.ctx.file,
      message: `expected a top-level JSON array${this.ctx.jsonPath === undefined ? '' : ` or an object with key '${this.ctx.jsonPath}'`}, found '${String.fromCharCode(b)}'`,
    });
  }

  private objectByte(i: number, b: number): void {
    if (isSpace(b)) return;
    const atTop = this.depth === 1;
    if (atTop && this.armed) {
      if (b === 91 /* [ */) {
        this.armed = false;
        this.phase = 'array';
        this.depth = 2;
        this.arrayDepth = 2;
        return;
      }
      throw new DataError({
        file: this.ctx.file,
        message: `top-level key '${this.ctx.jsonPath}' holds ${b === 123 ? 'an object' : 'a scalar'}, expected an array of rows`,
      });
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (atTop && this.expectKey) {
          this.capturingKey = true;
          this.keyStart = i + 1;
          this.keyParts = [];
        }
        return;
      case 91:
      case 123:
        this.depth++;
        return;
      case 93:
      case 125:
        this.depth--;
        if (this.depth === 0) throw this.missingKey('no such key in the top-level object');
        return;
      case 58 /* : */:
        if (atTop) {
          this.expectKey = false;
          if (this.lastKey === this.ctx.jsonPath) this.armed = true;
        }
        return;
      case 44 /* , */:
        if (atTop) this.expectKey = true;
        return;
    }
  }

  private endKey(chunk: Buffer, quoteAt: number): void {
    this.capturingKey = false;
    const raw = Buffer.concat([...this.keyParts, chunk.subarray(this.keyStart, quoteAt)]).toString('utf8');
    this.keyParts = [];
    try {
      this.lastKey = JSON.parse(`"${raw}"`) as string;
    } catch {
      this.lastKey = raw;
    }
    if (this.keysSeen.length < 20) this.keysSeen.push(this.lastKey);
  }

  private missingKey(what: string): DataError {
    const keys = this.keysSeen.map((k) => `'${k}'`).join(', ');
    return new DataError({
      file: this.ctx.file,
      message: `jsonPath '${this.ctx.jsonPath}': ${what} (top-level keys: ${keys || 'none'})`,
    });
  }

  private arrayByte(chunk: Buffer, i: number, b: number): void {
    const d = this.depth;
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (d === this.arrayDepth) this.begin(i);
        return;
      case 91:
      case 123:
        if (d === this.arrayDepth) this.begin(i);
        this.depth++;
        return;
      case 93:
      case 125:
        if (d === this.arrayDepth) {
          if (this.inElement) this.finish(chunk, i);
          this.depth--;
          this.phase = this.arrayDepth === 1 ? 'after' : 'done';
          return;
        }
        this.depth--;
        return;
      case 44:
        if (d === this.arrayDepth) {
          if (this.inElement) this.finish(chunk, i);
          else this.reject(this.index++, 'empty array element', '');
        }
        return;
      default:
        if (d === this.arrayDepth && !isSpace(b)) this.begin(i);
    }
  }

  private begin(i: number): void {
    if (this.inElement) return;
    this.inElement = true;
    this.elementStart = i;
  }

  private elementText(): string {
    return this.parts.head().toString('utf8');
  }

  private finish(chunk: Buffer, end: number): void {
    this.inElement = false;
    const row = this.index++;
    this.parts.keep(chunk.subarray(this.elementStart, end));
    const taken = this.parts.take();
    if (taken.overflow) {
      const bytes = taken.size;
      this.out.reject({
        step: STEP,
        file: this.ctx.file,
        row,
        reason: `element is ${bytes} bytes, over maxLineBytes (${this.ctx.maxLineBytes})`,
        payload: oversizedPayload(taken.head, bytes),
      });
      return;
    }
    const buf = taken.bytes;
    if (!isUtf8(buf)) {
      this.reject(row, 'invalid UTF-8', buf.toString('utf8'));
      return;
    }
    const text = buf.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const msg = err instanceof RangeError ? 'nested too deeply' : (err as Error).message;
      this.reject(row, `invalid JSON: ${msg}`, text);
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.reject(row, `expected a JSON object, got ${jsonKind(value)}`, text);
      return;
    }
    if (jsonTooDeep(text, this.ctx.maxDepth)) {
      this.reject(row, `JSON nested deeper than ${this.ctx.maxDepth} levels (maxDepth)`, text);
      return;
    }
    this.out.add({ fields: value as Record<string, unknown>, source: { file: this.ctx.file, row } });
  }

  private reject(row: number, reason: string, text: string): void {
    this.out.reject({ step: STEP, file: this.ctx.file, row, reason, payload: truncatePayload(text) });
  }
}

function isSpace(b: number): boolean {
  return b === 32 || b === 10 || b === 13 || b === 9;
}

/**
 * What a `.json` file holds, judged from its first bytes: `[` → an array; `{` with `jsonPath` →
 * an object holding the array; `{` whose first line is a whole object → JSON Lines (Hugging Face
 * `to_json` writes JSON Lines under a `.json` name); a bare `{` line → a pretty-printed object, which
 * needs `jsonPath`.
 */
function sniff(head: Buffer, jsonPath: string | undefined): 'array' | 'jsonl' | 'object' | 'unknown' {
  let i = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && isSpace(head[i]!)) i++;
  if (i >= head.length) return 'unknown';
  if (head[i] === 91) return 'array';
  if (head[i] !== 123) return 'array'; // the array parser reports what it found
  if (jsonPath !== undefined) return 'object';
  const nl = head.indexOf(10, i);
  const firstLine = head
    .subarray(i, nl === -1 ? head.length : nl)
    .toString('utf8')
    .trim();
  return firstLine === '{' ? 'object' : 'jsonl';
}

/** Parse a JSON byte stream (see JsonArrayParser; JSON Lines content is detected and read as such). */
export async function* parseJsonArray(
  bytes: AsyncIterable<Uint8Array>,
  ctx: JsonReadContext,
): AsyncGenerator<RawBatch> {
  const it = bytes[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let kind: ReturnType<typeof sniff> = 'unknown';
  // Read until the first non-blank line is complete (or 64 KiB), enough to decide.
  for (;;) {
    const next = await it.next();
    if (next.done) break;
    head.push(asBuffer(next.value));
    headBytes += next.value.length;
    const joined = Buffer.concat(head, headBytes);
    kind = sniff(joined, ctx.jsonPath);
    const decided =
      kind === 'array' || (kind !== 'unknown' && (joined.indexOf(10) !== -1 || headBytes > 65536));
    if (decided) break;
  }
  if (headBytes === 0) return;
  if (kind === 'object' && ctx.jsonPath === undefined) {
    throw new DataError({
      file: ctx.file,
      message:
        "the top-level JSON value is an object; set jsonPath to the key that holds the array of rows (e.g. 'data')",
    });
  }
  const out = new BatchBuilder(ctx.batchSize);
  const parser = kind === 'jsonl' ? new JsonlParser(ctx, out) : new JsonArrayParser(ctx, out);
  for await (const chunk of prepend(head, it)) {
    parser.push(chunk);
    for (const batch of out.takeReady()) yield batch;
  }
  parser.end();
  for (const batch of out.finish()) yield batch;
}
