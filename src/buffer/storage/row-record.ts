// The row store's record format (payload-rows.ts). A record is the row's seq (f64); the byte
// lengths of id, response and prompt (u32, prompt i32 with −1 for null); the token and logprob
// counts (u32); the CRC-32 of all the record's other bytes; then the bytes of id, response,
// prompt, tokens (i32) and logprobs (f32). An index entry is seq, offset, length (f64 each).
import { write, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type * as arrow from 'apache-arrow';
import { copy, type ListCol, listCol, span, type Utf8Col, utf8Col } from './payload-columns.ts';

export const CRC_AT = 8 + 4 * 5;
export const HEAD = CRC_AT + 4;
export const ENTRY = 24;

/** A row's payload as the table stores it. */
export interface RowPayload {
  id: string;
  seq: number;
  response: string;
  prompt: string | null;
  tokens: number[];
  logprobs: number[];
}

/** One batch's payload columns and the size of each of its records. */
export interface RecordLayout {
  seqs: Float64Array;
  sizes: Float64Array;
  total: number;
  cols: { id: Utf8Col; response: Utf8Col; prompt: Utf8Col; tokens: ListCol; logprobs: ListCol };
}

/** The records a freshly encoded batch makes, or null when its columns do not fit the format. */
export function recordLayout(batch: arrow.RecordBatch): RecordLayout | null {
  const n = batch.numRows;
  const id = utf8Col(batch, 'id');
  const response = utf8Col(batch, 'response');
  const prompt = utf8Col(batch, 'prompt');
  const tokens = listCol(batch, 'tokens');
  const logprobs = listCol(batch, 'logprobs');
  const seqCol = batch.getChild('seq')?.toArray() as ArrayLike<number | bigint> | undefined;
  if (!id || !response || !prompt || !tokens || !logprobs || !seqCol) return null;
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
  return { seqs, sizes, total, cols: { id, response, prompt, tokens, logprobs } };
}

/** Write the batch's records into `out` and their entries (offsets from 0) into `entries`. */
export function fillRecords(layout: RecordLayout, out: Buffer, entries: Buffer): void {
  const { seqs } = layout;
  const { id, response, prompt, tokens, logprobs } = layout.cols;
  const n = seqs.length;
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
}

/** The payload of a whole, verified record of `seq` (null: torn, damaged or another seq). */
export function decodeRecord(buf: Buffer, seq: number): RowPayload | null {
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
export function recordCrc(record: Buffer): number {
  return crc32(record.subarray(HEAD), crc32(record.subarray(0, CRC_AT)));
}

/** Write all of `buf` at `position` now (throws on an error). */
export function writeAll(fd: number, buf: Buffer, position: number): void {
  for (let from = 0; from < buf.length; )
    from += writeSync(fd, buf, from, buf.length - from, position + from);
}

/** Write all of `buf` at `position` off the main thread; resolves false on an error (a cache may miss). */
export function writeAt(fd: number, buf: Buffer, position: number): Promise<boolean> {
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
