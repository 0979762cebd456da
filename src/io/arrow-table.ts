import {
  Bool,
  type DataType,
  DataType as DT,
  Field,
  Float64,
  Int64,
  List,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { DataError, errorMessage } from '../core/errors.ts';
import { JSON_ENCODING_KEY } from './arrow-values.ts';
import { jsonSafe } from './jsonl-writer.ts';

/** The shape inferred for one column (or nested value) from JS values. */
type Shape =
  | { kind: 'null' | 'bool' | 'int' | 'float' | 'string' | 'json' }
  | { kind: 'list'; item: Shape }
  | { kind: 'struct'; fields: Map<string, Shape> };

const NULL: Shape = { kind: 'null' };
const JSON_SHAPE: Shape = { kind: 'json' };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function shapeOf(v: unknown, depth: number): Shape {
  if (v === null || v === undefined) return NULL;
  switch (typeof v) {
    case 'boolean':
      return { kind: 'bool' };
    case 'number':
      return { kind: Number.isSafeInteger(v) ? 'int' : 'float' };
    case 'bigint':
      return { kind: 'int' };
    case 'string':
      return { kind: 'string' };
  }
  if (depth > 32) return JSON_SHAPE;
  if (v instanceof Date) return { kind: 'string' };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const floats = v instanceof Float32Array || v instanceof Float64Array;
    return { kind: 'list', item: { kind: floats ? 'float' : 'int' } };
  }
  if (Array.isArray(v)) {
    let item: Shape = NULL;
    for (const x of v) item = merge(item, shapeOf(x, depth + 1));
    return { kind: 'list', item };
  }
  if (isPlainObject(v)) {
    const fields = new Map<string, Shape>();
    for (const [k, x] of Object.entries(v)) fields.set(k, shapeOf(x, depth + 1));
    return { kind: 'struct', fields };
  }
  return JSON_SHAPE;
}

function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'json' || b.kind === 'json') return JSON_SHAPE;
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', item: merge(a.item, b.item) };
  if (a.kind === 'struct' && b.kind === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, s] of b.fields) fields.set(k, merge(fields.get(k) ?? NULL, s));
    return { kind: 'struct', fields };
  }
  if (a.kind === b.kind) return a;
  if ((a.kind === 'int' && b.kind === 'float') || (a.kind === 'float' && b.kind === 'int'))
    return { kind: 'float' };
  return JSON_SHAPE;
}

const JSON_META = new Map([[JSON_ENCODING_KEY, 'json']]);

function fieldFor(name: string, shape: Shape): Field {
  switch (shape.kind) {
    case 'null':
    case 'string':
      return new Field(name, new Utf8(), true);
    case 'bool':
      return new Field(name, new Bool(), true);
    case 'int':
      return new Field(name, new Int64(), true);
    case 'float':
      return new Field(name, new Float64(), true);
    case 'list':
      return new Field(name, new List(fieldFor('item', shape.item)), true);
    case 'struct':
      // Parquet cannot store a struct without fields: such values go as JSON text.
      if (shape.fields.size === 0) break;
      return new Field(name, new Struct([...shape.fields].map(([k, s]) => fieldFor(k, s))), true);
  }
  return new Field(name, new Utf8(), true, JSON_META);
}

/**
 * An Arrow schema for plain JS rows: booleans → Bool, safe integers → Int64, other numbers →
 * Float64, strings and Dates → Utf8, arrays → List, objects → Struct (union of keys). Columns with
 * mixed types (or empty objects) are stored as JSON text, marked in field metadata so Winnow's
 * readers turn them back into values. All-null columns are Utf8.
 */
export function inferArrowSchema(rows: readonly object[]): Schema {
  const columns = new Map<string, Shape>();
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) columns.set(k, merge(columns.get(k) ?? NULL, shapeOf(v, 0)));
  }
  return new Schema([...columns].map(([name, shape]) => fieldFor(name, shape)));
}

type ToArrow = (v: unknown) => unknown;

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
}

/** Converts a JS value to what arrow's builders accept for `field` (BigInt for Int64, nulls for missing struct keys…). */
function converter(field: Field): ToArrow {
  const type: DataType = field.type;
  if (field.metadata.get(JSON_ENCODING_KEY) === 'json') return (v) => JSON.stringify(v, jsonSafe);
  if (DT.isInt(type) && type.bitWidth === 64) {
    return (v) => {
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      throw new TypeError(`expected an integer, got ${describe(v)}`);
    };
  }
  if (DT.isInt(type) || DT.isFloat(type)) {
    return (v) => {
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      throw new TypeError(`expected a number, got ${describe(v)}`);
    };
  }
  if (DT.isBool(type)) {
    return (v) => {
      if (typeof v === 'boolean') return v;
      throw new TypeError(`expected a boolean, got ${describe(v)}`);
    };
  }
  if (DT.isUtf8(type) || DT.isLargeUtf8(type)) {
    return (v) => {
      if (typeof v === 'string') return v;
      if (v instanceof Date) return v.toISOString();
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      throw new TypeError(`expected a string, got ${describe(v)}`);
    };
  }
  if (DT.isList(type) || DT.isFixedSizeList(type)) {
    const item = converter(type.children[0]!);
    return (v) => {
      if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView))) {
        throw new TypeError(`expected an array, got ${describe(v)}`);
      }
      return Array.from(v as ArrayLike<unknown>, (x) => (x === null || x === undefined ? null : item(x)));
    };
  }
  if (DT.isStruct(type)) {
    const children = type.children.map((c) => ({ name: c.name, convert: converter(c) }));
    return (v) => {
      if (!isPlainObject(v)) throw new TypeError(`expected an object, got ${describe(v)}`);
      const out: Record<string, unknown> = {};
      for (const { name, convert } of children) {
        const x = v[name];
        out[name] = x === null || x === undefined ? null : convert(x);
      }
      return out;
    };
  }
  return (v) => v;
}

/**
 * Rows → an Arrow Table. With `schema`, values are converted to its types (an error names the row
 * (counted from `where.firstRow`) and column that does not fit); without, the schema is inferred
 * (see inferArrowSchema).
 */
export function rowsToArrowTable(
  rows: readonly object[],
  schema?: Schema,
  where: { file?: string; firstRow?: number } = {},
): Table {
  const s = schema ?? inferArrowSchema(rows);
  const columns: Record<string, ReturnType<typeof vectorFromArray>> = {};
  for (const field of s.fields) {
    const convert = converter(field);
    const values = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const v = (rows[i] as Record<string, unknown>)[field.name];
      try {
        values[i] = v === null || v === undefined ? null : convert(v);
      } catch (err) {
        throw new DataError({
          file: where.file,
          row: (where.firstRow ?? 0) + i,
          message: `column '${field.name}': ${errorMessage(err)}`,
        });
      }
    }
    columns[field.name] = vectorFromArray(values, field.type);
  }
  return new Table(s, columns);
}
