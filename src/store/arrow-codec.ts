import * as arrow from 'apache-arrow';
import { commonJsArrow, tableToIpcStream } from '../io/arrow-ipc.ts';
import { plainNested, timeReader, typedColumnData } from './typed-columns.ts';

/**
 * A column of a row type: its Arrow name/type and how to read it from a JS row.
 * Tables are described once as a list of columns; encoding then runs column by column,
 * which is what Arrow wants and avoids per-row schema checks.
 */
export interface ColumnSpec<R> {
  name: string;
  type: arrow.DataType;
  nullable?: boolean;
  /** Field metadata (the JSON extension type of `typed-columns.ts`). */
  metadata?: ReadonlyMap<string, string>;
  get(row: R): unknown;
}

export function schemaOf<R>(columns: readonly ColumnSpec<R>[]): arrow.Schema {
  return new arrow.Schema(
    columns.map(
      (c) =>
        new arrow.Field(c.name, c.type, c.nullable ?? false, c.metadata ? new Map(c.metadata) : undefined),
    ),
  );
}

const encoder = new TextEncoder();

/** Validity bitmap for nullable columns (undefined when nothing is null). */
function validity(values: readonly unknown[]): { bitmap: Uint8Array | undefined; nulls: number } {
  let nulls = 0;
  for (const v of values) if (v === null || v === undefined) nulls++;
  if (nulls === 0) return { bitmap: undefined, nulls };
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++)
    if (values[i] !== null && values[i] !== undefined) bitmap[i >> 3]! |= 1 << (i & 7);
  return { bitmap, nulls };
}

/**
 * Utf8 column built straight into one buffer (apache-arrow's generic builder is ~10× slower,
 * and task tables are mostly text).
 */
function utf8Data(values: readonly unknown[]): arrow.Data {
  const { bitmap, nulls } = validity(values);
  const offsets = new Int32Array(values.length + 1);
  let cap = 64;
  for (const v of values) if (typeof v === 'string') cap += v.length * 3;
  let bytes = new Uint8Array(cap);
  let pos = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string' && v.length > 0) {
      const { written } = encoder.encodeInto(v, bytes.subarray(pos));
      pos += written;
    }
    offsets[i + 1] = pos;
  }
  bytes = bytes.subarray(0, pos);
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: values.length,
    nullCount: nulls,
    nullBitmap: bitmap,
    valueOffsets: offsets,
    data: bytes,
  });
}

function numericData(type: arrow.Int32 | arrow.Float64, values: readonly unknown[]): arrow.Data {
  const { bitmap, nulls } = validity(values);
  const fill = (data: Int32Array | Float64Array) => {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      data[i] = typeof v === 'number' ? v : 0;
    }
    return data;
  };
  if (type instanceof arrow.Int32) {
    return arrow.makeData({
      type,
      length: values.length,
      nullCount: nulls,
      nullBitmap: bitmap,
      data: fill(new Int32Array(values.length)) as Int32Array,
    });
  }
  return arrow.makeData({
    type,
    length: values.length,
    nullCount: nulls,
    nullBitmap: bitmap,
    data: fill(new Float64Array(values.length)) as Float64Array,
  });
}

function columnData(type: arrow.DataType, values: readonly unknown[]): arrow.Data {
  if (type instanceof arrow.Utf8) return utf8Data(values);
  const typed = typedColumnData(type, values);
  if (typed) return typed;
  if (type instanceof arrow.Int32 || type instanceof arrow.Float64) return numericData(type, values);
  return arrow.vectorFromArray(values, type).data[0]!;
}

/** Encode rows into an Arrow table with exactly the given schema. */
export function encodeRows<R>(rows: readonly R[], columns: readonly ColumnSpec<R>[]): arrow.Table {
  const schema = schemaOf(columns);
  const children: arrow.Data[] = [];
  for (const col of columns) {
    const values = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = col.get(rows[i]!);
    children.push(columnData(col.type, values));
  }
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children }),
  );
  return new arrow.Table(schema, [batch]);
}

/** Read one column of an Arrow table as plain JS values (lists become arrays, bigints numbers). */
export function columnValues(table: arrow.Table, name: string): unknown[] {
  const vec = table.getChild(name);
  if (!vec) return new Array(table.numRows).fill(undefined);
  // A time no Date can hold reads as NaN instead of throwing (timeReader).
  if (arrow.DataType.isTimestamp(vec.type)) {
    const read = timeReader(vec);
    return Array.from({ length: table.numRows }, (_, i) => read(i));
  }
  const out = new Array<unknown>(table.numRows);
  let i = 0;
  for (const v of vec) out[i++] = plainValue(v);
  return out;
}

export function plainValue(v: unknown): unknown {
  return plainNested(v);
}

/** Decode all rows of an Arrow table into objects using per-column readers. */
export function decodeRows<R>(
  table: arrow.Table,
  build: (cols: Record<string, unknown[]>, i: number) => R,
): R[] {
  const cols: Record<string, unknown[]> = {};
  for (const field of table.schema.fields) cols[field.name] = columnValues(table, field.name);
  const out = new Array<R>(table.numRows);
  for (let i = 0; i < table.numRows; i++) out[i] = build(cols, i);
  return out;
}

// LanceDB (a CommonJS package) builds its Arrow tables with apache-arrow's CommonJS build, while
// our ESM code loads the ESM build: same version, different classes, so `instanceof` and even
// `tableToIPC` fail across the two. Re-reading the CommonJS build's IPC bytes gives a local table
// (written by io/arrow-ipc.ts, which picks the table's own build).
/** A table returned by LanceDB as a table of this module's apache-arrow (a copy via IPC when needed). */
export function localArrowTable(table: arrow.Table): arrow.Table {
  if (table instanceof arrow.Table) return table;
  return arrow.tableFromIPC(tableToIpcStream(table));
}

/**
 * A table with no rows and `schema`'s columns (a LanceDB schema, of either apache-arrow build): a
 * query that matches nothing comes back without columns, and an export of it should keep them.
 */
export function emptyLocalTable(schema: arrow.Schema): arrow.Table {
  const Table = (schema instanceof arrow.Schema ? arrow : commonJsArrow()).Table;
  return localArrowTable(new Table(schema));
}
