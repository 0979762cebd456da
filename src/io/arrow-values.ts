import { DataType, DateUnit, type Field, type RecordBatch, type Vector } from 'apache-arrow';
import type { RawRecord } from './raw-record.ts';

/**
 * Field metadata key set by rowsToArrowTable on columns it had to store as JSON text (mixed
 * types, empty objects); readers parse such columns back into values.
 */
export const JSON_ENCODING_KEY = 'winnow.encoding';

/** Turns one non-null Arrow value (as `Vector.get` returns it) into a plain JS value. */
type Convert = (value: unknown) => unknown;

const MAX_DATE_MS = 8.64e15;

/** A 64-bit integer as a JS number when exact, else as its decimal text (never a BigInt: not JSON). */
export function bigintToJs(v: bigint): number | string {
  return v <= 9007199254740991n && v >= -9007199254740991n ? Number(v) : v.toString();
}

function isoDate(ms: number, dateOnly: boolean): unknown {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) return ms;
  const iso = new Date(ms).toISOString();
  return dateOnly ? iso.slice(0, 10) : iso;
}

function numberish(v: unknown): unknown {
  if (typeof v === 'bigint') return bigintToJs(v);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView))
    return Array.from(v as unknown as ArrayLike<unknown>, numberish);
  return v;
}

/** The converter for values of `type`, or null when `Vector.get` already returns a plain value. */
export function converterFor(type: DataType, field?: Field): Convert | null {
  if (field?.metadata.get(JSON_ENCODING_KEY) === 'json') return (v) => JSON.parse(v as string) as unknown;
  if (DataType.isInt(type)) return type.bitWidth === 64 ? (v) => numberish(v) : null;
  if (DataType.isFloat(type) || DataType.isBool(type) || DataType.isNull(type)) return null;
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) return null;
  if (DataType.isTimestamp(type)) return (v) => isoDate(Number(v), false);
  if (DataType.isDate(type)) {
    const dateOnly = type.unit === DateUnit.DAY;
    return (v) => isoDate(Number(v), dateOnly);
  }
  if (DataType.isDecimal(type)) return (v) => String(v);
  if (DataType.isBinary(type) || DataType.isLargeBinary(type) || DataType.isFixedSizeBinary(type)) {
    return (v) => Uint8Array.from(v as Uint8Array); // a copy, so the record does not pin the batch's buffers
  }
  if (DataType.isList(type) || DataType.isFixedSizeList(type)) {
    const child = type.children[0]!;
    const inner = converterFor(child.type, child);
    return (v) => vectorToArray(v as Vector, child.type, inner);
  }
  if (DataType.isStruct(type)) {
    const children = type.children.map((c) => ({ name: c.name, convert: converterFor(c.type, c) }));
    return (v) => {
      const row = v as Record<string, unknown>;
      const obj: Record<string, unknown> = {};
      for (const { name, convert } of children) {
        const x = row[name];
        obj[name] = x == null ? null : convert ? convert(x) : x;
      }
      return obj;
    };
  }
  if (DataType.isMap(type)) {
    const valueField = type.children[0]!.type.children[1]!;
    const convert = converterFor(valueField.type, valueField);
    return (v) => {
      const obj: Record<string, unknown> = {};
      for (const [k, x] of v as Iterable<[unknown, unknown]>)
        obj[String(k)] = x == null ? null : convert ? convert(x) : x;
      return obj;
    };
  }
  if (DataType.isDictionary(type)) return converterFor(type.dictionary);
  // Time, Duration, Interval, Union: numbers, bigints or small typed arrays.
  return numberish;
}

function isPlainNumeric(type: DataType): boolean {
  return (DataType.isInt(type) && type.bitWidth <= 32) || (DataType.isFloat(type) && type.precision !== 0);
}

/** All values of a vector as a plain array (typed arrays where that is exact and cheap). */
function vectorToArray(vec: Vector, type: DataType, convert: Convert | null): unknown[] {
  if (convert === null && vec.nullCount === 0 && isPlainNumeric(type)) {
    return Array.from(vec.toArray() as ArrayLike<number>);
  }
  const n = vec.length;
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    const x = vec.get(i);
    out[i] = x == null ? null : convert ? convert(x) : x;
  }
  return out;
}

function columnValues(vec: Vector, field: Field): ArrayLike<unknown> {
  const convert = converterFor(field.type, field);
  if (convert === null && vec.nullCount === 0 && isPlainNumeric(field.type)) {
    return vec.toArray() as ArrayLike<number>;
  }
  return vectorToArray(vec, field.type, convert);
}

/** One Arrow record batch as raw records; rows are numbered from `firstRow` (0-based). */
export function batchToRecords(batch: RecordBatch, file: string, firstRow: number): RawRecord[] {
  const fields = batch.schema.fields;
  const names = fields.map((f) => f.name);
  const cols = fields.map((f, j) => columnValues(batch.getChildAt(j)!, f));
  const n = batch.numRows;
  const out = new Array<RawRecord>(n);
  for (let i = 0; i < n; i++) {
    const row: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) row[names[j]!] = cols[j]![i];
    out[i] = { fields: row, source: { file, row: firstRow + i } };
  }
  return out;
}
