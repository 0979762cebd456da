// Raw access to the Arrow columns the row store copies (payload-rows.ts): a utf8 column as offsets
// + bytes, a list of 4-byte numbers as offsets + the values' bytes, so a record is built with
// `Buffer.copy` calls and no per-value work. Only freshly encoded batches (offset 0) qualify.
import type * as arrow from 'apache-arrow';

/** Raw access to one column of a record batch: utf8 (offsets + bytes) or a list of 4-byte numbers. */
export interface Utf8Col {
  offsets: Int32Array;
  bytes: Buffer;
  valid: (i: number) => boolean;
}
export interface ListCol {
  offsets: Int32Array;
  values: Buffer;
}

export function span(offsets: Int32Array, i: number): number {
  return offsets[i + 1]! - offsets[i]!;
}

export function copy(out: Buffer, at: number, src: Buffer, from: number, to: number): number {
  return at + src.copy(out, at, from, to);
}

function asBuffer(a: Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function utf8Col(batch: arrow.RecordBatch, name: string): Utf8Col | null {
  const data = batch.getChild(name)?.data;
  if (data?.length !== 1 || String(data[0]!.type) !== 'Utf8') return null;
  const d = data[0]!;
  if (d.offset !== 0) return null; // only freshly encoded batches (a slice's buffers are shifted)
  return {
    offsets: d.valueOffsets as Int32Array,
    bytes: asBuffer(d.values as Uint8Array),
    valid: d.nullCount === 0 ? () => true : (i) => d.getValid(i),
  };
}

export function listCol(batch: arrow.RecordBatch, name: string): ListCol | null {
  const data = batch.getChild(name)?.data;
  if (data?.length !== 1) return null;
  const d = data[0]!;
  const child = d.children[0];
  if (!child || !['Int32', 'Float32'].includes(String(child.type))) return null;
  if (d.nullCount > 0 || d.offset !== 0 || child.offset !== 0) return null;
  const values = child.values as Int32Array | Float32Array;
  return {
    offsets: d.valueOffsets as Int32Array,
    values: Buffer.from(values.buffer, values.byteOffset, values.length * 4),
  };
}
