import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';

/**
 * Typed arrays in a selector checkpoint are stored as the base64 text of their bytes (little-endian,
 * as on every platform Node supports), so a JSON round trip restores every bit, NaN payloads included.
 */

export type Dtype = 'float64' | 'float32' | 'int32' | 'uint32' | 'uint8';

export const EncodedArraySchema = z.object({
  dtype: z.enum(['float64', 'float32', 'int32', 'uint32', 'uint8']),
  length: z.number().int().nonnegative(),
  base64: z.string(),
});
export type EncodedArray = z.infer<typeof EncodedArraySchema>;

type TypedArrayOf<D extends Dtype> = D extends 'float64'
  ? Float64Array<ArrayBuffer>
  : D extends 'float32'
    ? Float32Array<ArrayBuffer>
    : D extends 'int32'
      ? Int32Array<ArrayBuffer>
      : D extends 'uint32'
        ? Uint32Array<ArrayBuffer>
        : Uint8Array<ArrayBuffer>;

function dtypeOf(arr: Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array): Dtype {
  if (arr instanceof Float64Array) return 'float64';
  if (arr instanceof Float32Array) return 'float32';
  if (arr instanceof Int32Array) return 'int32';
  if (arr instanceof Uint32Array) return 'uint32';
  return 'uint8';
}

export function encodeArray(arr: Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array): {
  [key: string]: JsonValue;
} {
  const bytes = Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
  return { dtype: dtypeOf(arr), length: arr.length, base64: bytes.toString('base64') };
}

/** Decode an encoded array, checking its dtype (and length when given). `what` names it in errors. */
export function decodeArray<D extends Dtype>(
  value: unknown,
  dtype: D,
  what: string,
  length?: number,
): TypedArrayOf<D> {
  const parsed = EncodedArraySchema.safeParse(value);
  if (!parsed.success) throw new DataError({ message: `selector state: ${what} is not an encoded array` });
  const enc = parsed.data;
  if (enc.dtype !== dtype)
    throw new DataError({ message: `selector state: ${what} has dtype ${enc.dtype}, expected ${dtype}` });
  if (length !== undefined && enc.length !== length)
    throw new DataError({
      message: `selector state: ${what} has ${enc.length} entries, expected ${length}`,
    });
  const buf = Buffer.from(enc.base64, 'base64');
  // Copy into a fresh, aligned ArrayBuffer (a Buffer may be a view into a shared pool).
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  const out = makeArray(dtype, copy.buffer);
  if (out.length !== enc.length)
    throw new DataError({
      message: `selector state: ${what} decodes to ${out.length} entries, header says ${enc.length}`,
    });
  return out;
}

function makeArray<D extends Dtype>(dtype: D, buffer: ArrayBuffer): TypedArrayOf<D> {
  switch (dtype) {
    case 'float64':
      return new Float64Array(buffer) as TypedArrayOf<D>;
    case 'float32':
      return new Float32Array(buffer) as TypedArrayOf<D>;
    case 'int32':
      return new Int32Array(buffer) as TypedArrayOf<D>;
    case 'uint32':
      return new Uint32Array(buffer) as TypedArrayOf<D>;
    default:
      return new Uint8Array(buffer) as TypedArrayOf<D>;
  }
}

/** Numbers that may be NaN or ±Infinity, stored JSON-safely (JSON turns those into null). */
export function encodeNumber(x: number): JsonValue {
  return Number.isFinite(x) ? x : String(x);
}

export function decodeNumber(value: unknown, what: string): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  throw new DataError({
    message: `selector state: ${what} should be a number, got ${JSON.stringify(value)}`,
  });
}
