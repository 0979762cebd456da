import * as arrow from 'apache-arrow';

/**
 * A column of a row type: its Arrow name/type and how to read it from a JS row.
 * Tables are described once as a list of columns; encoding then runs column by column,
 * which is what Arrow wants and avoids per-row schema checks.
 */
export interface ColumnSpec<R> {
  name: string;
  type: arrow.DataType;
  nullable?: boolean;
  get(row: R): unknown;
}

export function schemaOf<R>(columns: readonly ColumnSpec<R>[]): arrow.Schema {
  return new arrow.Schema(columns.map((c) => new arrow.Field(c.name, c.type, c.nullable ?? false)));
}

/** Encode rows into an Arrow table with exactly the given schema. */
export function encodeRows<R>(rows: readonly R[], columns: readonly ColumnSpec<R>[]): arrow.Table {
  const schema = schemaOf(columns);
  const children: Record<string, arrow.Vector> = {};
  for (const col of columns) {
    const values = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = col.get(rows[i]!);
    children[col.name] = arrow.vectorFromArray(values, col.type);
  }
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: rows.length,
      nullCount: 0,
      children: columns.map((c) => children[c.name]!.data[0]!),
    }),
  );
  return new arrow.Table(schema, [batch]);
}

/** Read one column of an Arrow table as plain JS values (lists become arrays, bigints numbers). */
export function columnValues(table: arrow.Table, name: string): unknown[] {
  const vec = table.getChild(name);
  if (!vec) return new Array(table.numRows).fill(undefined);
  const out = new Array<unknown>(table.numRows);
  let i = 0;
  for (const v of vec) out[i++] = plainValue(v);
  return out;
}

export function plainValue(v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === 'bigint') return Number(v);
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  if (v instanceof arrow.Vector) return Array.from(v, plainValue);
  return v;
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
