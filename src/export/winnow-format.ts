import * as arrow from 'apache-arrow';
import { DataError } from '../core/errors.ts';
import { plainNested } from '../store/typed-columns.ts';
import { chatType, timestampMs, valueFor } from './arrow-build.ts';
import { featuresType, nestedField } from './arrow-infer.ts';
import type { ExportFormat, ExportOptions, ExportResult, ExportSource } from './export-format.ts';

/**
 * The plain format: the table's stored columns, in their order, with the nested parts given the
 * types a Parquet reader expects (tables written before the typed layout keep JSON text and float
 * milliseconds in LanceDB; typed tables keep JSON and maps) — task `messages` and experience
 * `messages` as chat turns, `features` as a struct of doubles, `meta` and `info` as structs
 * inferred from the values (arrow-infer.ts), and every float `*_at` (or `at`) column as a UTC millisecond
 * timestamp (0, which the tables use for "not set", becomes null). Other columns are copied as
 * they are, so tables other than tasks and experiences only gain timestamps.
 */

/** The JSON-text columns of each table kind, and how each is typed. */
const JSON_COLUMNS: Record<string, Record<string, 'chat' | 'features' | 'infer'>> = {
  tasks: { messages: 'chat', features: 'features', meta: 'infer' },
  experiences: { messages: 'chat', info: 'infer' },
};

/** A time stored as float milliseconds: `*_at`, and the journal's `at`. */
const isTimeColumn = (f: arrow.Field) =>
  (f.name === 'at' || f.name.endsWith('_at')) && arrow.DataType.isFloat(f.type);

function parseCells(data: arrow.Table, column: string, idOf: (i: number) => string): unknown[] {
  const vec = data.getChild(column)!;
  const out = new Array<unknown>(data.numRows);
  for (let i = 0; i < data.numRows; i++) {
    const raw = vec.get(i) as unknown;
    if (raw === null || raw === undefined) {
      out[i] = null;
      continue;
    }
    // Typed layout: chat turns and features are Arrow values; JSON and older tables' cells are text.
    if (typeof raw !== 'string') {
      out[i] = plainNested(raw);
      continue;
    }
    try {
      out[i] = JSON.parse(raw);
    } catch {
      throw new DataError({ message: `column '${column}', row '${idOf(i)}': not valid JSON` });
    }
  }
  return out;
}

/** The stored table with typed nested columns and timestamps (see above). */
export function typedStoredTable(
  data: arrow.Table,
  tableKind: string,
  options: Pick<ExportOptions, 'jsonText'>,
): { table: arrow.Table; notes: string[] } {
  const ids = data.getChild('id');
  const idOf = (i: number) => (ids ? String(ids.get(i)) : String(i));
  const jsonText = new Set(options.jsonText);
  const notes: string[] = [];
  /** Columns replaced: their new field and their values over all rows. */
  const replaced = new Map<string, { field: arrow.Field | null; values: unknown[] }>();
  for (const [name, how] of Object.entries(JSON_COLUMNS[tableKind] ?? {})) {
    const f = data.schema.fields.find((x) => x.name === name);
    const storedAs = f?.type;
    if (
      !storedAs ||
      !(arrow.DataType.isUtf8(storedAs) || arrow.DataType.isMap(storedAs) || arrow.DataType.isList(storedAs))
    )
      continue;
    const values = parseCells(data, name, idOf);
    if (how === 'chat') replaced.set(name, { field: new arrow.Field(name, chatType(), true), values });
    else if (how === 'features') {
      const type = featuresType(values.map((v) => (v ?? {}) as Record<string, number>));
      if (!type) notes.push(`'${name}' is left out: it is an empty object in every row`);
      replaced.set(name, { field: type ? new arrow.Field(name, type, f.nullable) : null, values });
    } else {
      const nested = nestedField(name, values, { jsonText, rowLabel: idOf });
      notes.push(...nested.notes);
      const typed = nested.field ? new arrow.Field(name, nested.field.type, f.nullable) : null;
      replaced.set(name, { field: typed, values });
    }
  }
  for (const f of data.schema.fields) {
    if (!isTimeColumn(f)) continue;
    const vec = data.getChild(f.name)!;
    const values = Array.from({ length: data.numRows }, (_, i) => {
      const ms = vec.get(i) as number | null;
      return ms === null || ms === 0 || !Number.isFinite(ms) ? null : Math.round(ms);
    });
    replaced.set(f.name, { field: new arrow.Field(f.name, timestampMs(), true), values });
  }
  const fields = data.schema.fields.flatMap((f) => {
    const r = replaced.get(f.name);
    if (!r) return [f];
    return r.field ? [r.field] : [];
  });
  const schema = new arrow.Schema(fields, data.schema.metadata);
  let offset = 0;
  const batches = data.batches.map((batch) => {
    const children = fields.map((f) => {
      const r = replaced.get(f.name);
      if (!r) return batch.getChild(f.name)!.data[0]!;
      const values = r.values.slice(offset, offset + batch.numRows).map((v) => valueFor(f.type, v));
      return arrow.vectorFromArray(values, f.type).data[0]!;
    });
    offset += batch.numRows;
    const struct = arrow.makeData({
      type: new arrow.Struct(fields),
      length: batch.numRows,
      nullCount: 0,
      children,
    });
    return new arrow.RecordBatch(schema, struct);
  });
  return { table: new arrow.Table(schema, batches), notes };
}

export const winnowFormat: ExportFormat = {
  name: 'winnow',
  summary:
    'the stored columns of any table, with messages/features/meta/info as typed structs and lists and *_at as timestamps',
  reads: 'stored',
  build(source: ExportSource, options: ExportOptions): ExportResult {
    if (source.kind !== 'stored') throw new TypeError('winnow reads the stored table');
    const { table, notes } = typedStoredTable(source.data, source.tableKind, options);
    return { table, rows: [], dropped: [], notes };
  },
};
