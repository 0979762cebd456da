import * as arrow from 'apache-arrow';

/**
 * An export's Arrow table as JSON-ready rows, so JSONL holds what a Parquet reader sees in the
 * Parquet export of the same rows (docs/exports.md, "JSONL"): structs are objects (every field
 * of the struct present, null where a row has none), lists are arrays, timestamps and dates are
 * ISO-8601 strings in UTC, int64 values are numbers (decimal strings beyond 2^53), and nulls are
 * null. The rows are made per record batch, so a large table is not turned into objects at once.
 */

type ToJson = (v: unknown) => unknown;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function integer(v: unknown): unknown {
  if (typeof v !== 'bigint') return v;
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
}

/** ISO-8601 text of epoch milliseconds (apache-arrow reads every timestamp and date unit as ms). */
function isoTime(v: unknown): unknown {
  const ms = typeof v === 'bigint' ? Number(v) : (v as number);
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The converter for one Arrow type (built once per column, applied to every value). */
function converterFor(type: arrow.DataType): ToJson {
  const nullable =
    (f: ToJson): ToJson =>
    (v) =>
      v === null || v === undefined ? null : f(v);
  if (arrow.DataType.isTimestamp(type) || arrow.DataType.isDate(type)) return nullable(isoTime);
  if (arrow.DataType.isInt(type)) return nullable(integer);
  if (arrow.DataType.isList(type) || arrow.DataType.isFixedSizeList(type)) {
    const item = converterFor(type.children[0]!.type);
    return nullable((v) => Array.from(v as Iterable<unknown>, item));
  }
  if (arrow.DataType.isStruct(type)) {
    const fields = type.children.map((f) => ({ name: f.name, convert: converterFor(f.type) }));
    return nullable((v) => {
      const row = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const { name, convert } of fields) out[name] = convert(row[name]);
      return out;
    });
  }
  if (arrow.DataType.isMap(type)) {
    // A map's entries are struct<key, value>: an object keyed by the key's text.
    const entry = type.children[0]!.type as arrow.Struct;
    const value = converterFor(entry.children[1]!.type);
    return nullable((v) => {
      const out: Record<string, unknown> = {};
      for (const [k, x] of v as Iterable<[unknown, unknown]>) out[String(k)] = value(x);
      return out;
    });
  }
  if (arrow.DataType.isBinary(type) || arrow.DataType.isFixedSizeBinary(type))
    return nullable((v) => Buffer.from(v as Uint8Array).toString('base64'));
  // Numbers (NaN and ±Infinity turn null in JSON, as JSON.stringify writes them), strings, booleans.
  return nullable((v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

/** The table's rows as plain objects (rules above), one array per record batch. */
export function* jsonRowBatches(table: arrow.Table): Generator<Record<string, unknown>[]> {
  const columns = table.schema.fields.map((f) => ({ name: f.name, convert: converterFor(f.type) }));
  for (const batch of table.batches) {
    const vectors = columns.map((c) => batch.getChild(c.name)!);
    const rows = new Array<Record<string, unknown>>(batch.numRows);
    for (let i = 0; i < batch.numRows; i++) {
      const row: Record<string, unknown> = {};
      for (let c = 0; c < columns.length; c++)
        row[columns[c]!.name] = columns[c]!.convert(vectors[c]!.get(i));
      rows[i] = row;
    }
    yield rows;
  }
}
