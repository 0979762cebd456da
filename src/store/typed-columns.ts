import * as arrow from 'apache-arrow';
import { MAX_TIME_MS, outsideTimeRange } from '../core/experience.ts';

/**
 * The typed column layouts Winnow's LanceDB tables use for their nested and time columns, and
 * fast builders for them (apache-arrow's generic `vectorFromArray` spends microseconds per nested
 * value; these write the buffers directly).
 *
 * - chat turns: `list<struct<role: string, content: string>>`;
 * - named numbers (`features`): `map<string, double>` — one fixed type whatever names a task set
 *   uses (LanceDB keeps one schema per table, and a struct would need a new field per name);
 * - free-form bags (`meta`, `info`, run summaries): JSON, Arrow's canonical `arrow.json` extension
 *   type, which Lance stores as its binary JSON (`lance.json`) and serves back as `arrow.json`;
 * - times: `timestamp[ms, UTC]`, null for "not set" (the old layout stored 0).
 */

/** Field metadata naming Arrow's canonical JSON extension type. */
export const JSON_EXTENSION: ReadonlyMap<string, string> = new Map([['ARROW:extension:name', 'arrow.json']]);

export const MESSAGE_STRUCT = new arrow.Struct([
  new arrow.Field('role', new arrow.Utf8(), false),
  new arrow.Field('content', new arrow.Utf8(), false),
]);
export const MESSAGES_TYPE = new arrow.List(new arrow.Field('item', MESSAGE_STRUCT, true));

export const NUMBER_MAP_TYPE = new arrow.Map_<arrow.Utf8, arrow.Float64>(
  new arrow.Field(
    'entries',
    new arrow.Struct<{ key: arrow.Utf8; value: arrow.Float64 }>([
      new arrow.Field('key', new arrow.Utf8(), false),
      new arrow.Field('value', new arrow.Float64(), true),
    ]),
    false,
  ),
);

export const TIMESTAMP_MS = new arrow.TimestampMillisecond('UTC');

/** True for a field holding JSON: the canonical extension, or Lance's own name for it. */
export function isJsonField(field: arrow.Field): boolean {
  const ext = field.metadata.get('ARROW:extension:name');
  return ext === 'arrow.json' || ext === 'lance.json';
}

const encoder = new TextEncoder();

function validity(n: number, isNull: (i: number) => boolean): { nullBitmap?: Uint8Array; nullCount: number } {
  let nullCount = 0;
  for (let i = 0; i < n; i++) if (isNull(i)) nullCount++;
  if (nullCount === 0) return { nullCount };
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (!isNull(i)) nullBitmap[i >> 3]! |= 1 << (i & 7);
  return { nullBitmap, nullCount };
}

const missing = (v: unknown) => v === null || v === undefined;

/** A non-null Utf8 child built from strings already gathered. */
function utf8Child(strings: readonly string[]): arrow.Data<arrow.Utf8> {
  const offsets = new Int32Array(strings.length + 1);
  let cap = 16;
  for (const s of strings) cap += s.length * 3;
  const bytes = new Uint8Array(cap);
  let pos = 0;
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!;
    if (s.length > 0) pos += encoder.encodeInto(s, bytes.subarray(pos)).written;
    offsets[i + 1] = pos;
  }
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: strings.length,
    valueOffsets: offsets,
    data: bytes.slice(0, pos),
  });
}

/** `list<struct<role, content>>` from per-row arrays of chat turns (null/undefined: a null row). */
export function messagesData(values: readonly unknown[]): arrow.Data {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  const roles: string[] = [];
  const contents: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (Array.isArray(v))
      for (const m of v as { role: string; content: string }[]) {
        roles.push(m.role);
        contents.push(m.content);
      }
    offsets[i + 1] = roles.length;
  }
  const struct = arrow.makeData({
    type: MESSAGE_STRUCT,
    length: roles.length,
    nullCount: 0,
    children: [utf8Child(roles), utf8Child(contents)],
  });
  return arrow.makeData({
    type: MESSAGES_TYPE,
    length: n,
    valueOffsets: offsets,
    child: struct,
    ...validity(n, (i) => !Array.isArray(values[i])),
  });
}

/** `map<string, double>` from per-row objects of named numbers (null/undefined: an empty map). */
export function numberMapData(values: readonly unknown[]): arrow.Data {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  const keys: string[] = [];
  const nums: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        keys.push(k);
        nums.push(typeof x === 'number' ? x : Number.NaN);
      }
    offsets[i + 1] = keys.length;
  }
  return numberMapFromEntries(utf8Child(keys), nums, offsets);
}

/** `map<string, double>` from its flattened entries: key column, values, and row offsets into both. */
export function numberMapFromEntries(
  keys: arrow.Data,
  nums: readonly number[],
  offsets: Int32Array,
): arrow.Data {
  const entryType = NUMBER_MAP_TYPE.children[0]!.type as arrow.Struct;
  const entries = arrow.makeData({
    type: entryType,
    length: nums.length,
    nullCount: 0,
    children: [
      keys,
      arrow.makeData({ type: new arrow.Float64(), length: nums.length, data: Float64Array.from(nums) }),
    ],
  });
  return arrow.makeData({
    type: NUMBER_MAP_TYPE,
    length: offsets.length - 1,
    valueOffsets: offsets,
    child: entries,
    nullCount: 0,
  });
}

/** `timestamp[ms, UTC]` from epoch milliseconds; null, undefined and 0 ("not set") are null. */
export function timestampData(values: readonly unknown[]): arrow.Data {
  const n = values.length;
  const ms = new BigInt64Array(n);
  const unset = (i: number) => missing(values[i]) || values[i] === 0 || !Number.isFinite(values[i] as number);
  for (let i = 0; i < n; i++) if (!unset(i)) ms[i] = BigInt(Math.round(values[i] as number));
  // apache-arrow types a timestamp's buffer as Int32Array pairs but reads a BigInt64Array as is.
  return arrow.makeData({
    type: TIMESTAMP_MS,
    length: n,
    data: ms as unknown as Int32Array,
    ...validity(n, unset),
  });
}

/**
 * Read a time column (`timestamp[ms]`, or the old layout's float milliseconds) cell by cell: null
 * for an unset cell, NaN for one no JS Date can hold (|ms| > MAX_TIME_MS; apache-arrow's own
 * `get` throws a TypeError on an int64 past 2^53). Such a cell can only come from another tool.
 */
export function timeReader(vec: arrow.Vector | null | undefined): (i: number) => number | null {
  if (!vec) return () => null;
  return (i) => {
    let v: unknown;
    try {
      v = vec.get(i);
    } catch {
      return Number.NaN;
    }
    if (v === null || v === undefined) return null;
    const ms = Number(v);
    return outsideTimeRange(ms) ? Number.NaN : ms;
  };
}

/** Why a time cell `timeReader` read as NaN is bad, for a BadCell or a one-line error. */
export const BAD_TIME = `not a time a JS Date can hold (epoch milliseconds within ±${MAX_TIME_MS})`;

/** The builder for a typed column, or undefined when the generic builders handle its type. */
export function typedColumnData(type: arrow.DataType, values: readonly unknown[]): arrow.Data | undefined {
  if (arrow.DataType.isTimestamp(type)) return timestampData(values);
  if (arrow.DataType.isMap(type)) return numberMapData(values);
  if (arrow.DataType.isList(type) && arrow.DataType.isStruct(type.children[0]!.type))
    return messagesData(values);
  return undefined;
}

/**
 * A value read from an Arrow vector as plain JS (maps and structs become objects, lists arrays).
 * Duck-typed on `toJSON`: LanceDB hands back rows of apache-arrow's CommonJS build, whose classes
 * are not this module's.
 */
export function plainNested(v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object') return v;
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  const toJSON = (v as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON !== 'function' || v instanceof Date) return v;
  const j = toJSON.call(v);
  if (Array.isArray(j)) return j.map(plainNested);
  if (j === null || typeof j !== 'object') return j;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(j)) out[k] = plainNested(x);
  return out;
}

interface AdaptableColumn {
  name: string;
  type: arrow.DataType;
  nullable?: boolean;
  metadata?: ReadonlyMap<string, string>;
  get(row: never): unknown;
}

/**
 * Column specs fitted to a table that already exists. Tables created before the typed layout keep
 * theirs (JSON text for nested columns, float milliseconds for times) and stay writable: a typed
 * column whose stored field is plain text is written as JSON text, a time column stored as a
 * double as milliseconds (0 for "not set"). Nothing is rewritten behind the user's back.
 */
export function fitColumns<C extends AdaptableColumn>(columns: readonly C[], stored: arrow.Schema): C[] {
  const fields = new Map(stored.fields.map((f) => [f.name, f]));
  return columns.map((c) => {
    const field = fields.get(c.name);
    if (!field || (c.metadata === undefined && c.type.typeId === field.type.typeId)) return c;
    const get = c.get as (row: unknown) => unknown;
    if (arrow.DataType.isUtf8(field.type) && !isJsonField(field)) {
      if (c.metadata !== undefined) return { ...c, metadata: undefined }; // already JSON text
      const asText = (row: unknown) => {
        const v = get(row);
        return v === null || v === undefined ? null : JSON.stringify(v);
      };
      return { ...c, type: new arrow.Utf8(), get: asText };
    }
    if (arrow.DataType.isFloat(field.type) && arrow.DataType.isTimestamp(c.type))
      return { ...c, type: new arrow.Float64(), get: (row: unknown) => Number(get(row) ?? 0) };
    // A number column a table made earlier stores as an integer: written as that integer type.
    if (arrow.DataType.isInt(field.type) && arrow.DataType.isFloat(c.type)) {
      // A type of this module's apache-arrow (LanceDB's schema comes from its CommonJS build).
      const { isSigned, bitWidth } = field.type as arrow.Int;
      return {
        ...c,
        type: isSigned && bitWidth === 32 ? new arrow.Int32() : new arrow.Int(isSigned, bitWidth),
      };
    }
    return c;
  });
}

/** True when a stored table still has the text/float layout of one of these typed columns. */
export function hasLegacyLayout(columns: readonly AdaptableColumn[], stored: arrow.Schema): boolean {
  return fitColumns(columns, stored).some((c, i) => c !== columns[i]);
}

/** A SQL literal comparing with time column `column` as fitted to its table (timestamp or float ms). */
export function timeLiteral(column: AdaptableColumn | undefined, ms: number): string {
  const v = Math.round(Number(ms));
  return column && arrow.DataType.isTimestamp(column.type)
    ? `arrow_cast(${v}, 'Timestamp(Millisecond, Some("UTC"))')`
    : String(Number(ms));
}
