import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeParquet } from '../../src/io/parquet-writer.ts';
import { tempDir } from '../helpers/tmp.ts';
import { plainRows, readParquetFile } from './arrow-text.ts';

/**
 * Every null shape of nullable columns survives Parquet exactly: all null, none null, mixed, empty
 * batches, many batches, lengths around multiples of 8, 64 and 1024 — written by writeParquet (an
 * Arrow table of several record batches, and a stream of row batches) and read back by
 * parquet-wasm. apache-arrow 18's IPC writer sends an all-null Bool array without its values
 * bitmap, which parquet-wasm (arrow-rs) refuses: that was `winnow export` failing on the demo.
 */
const dir = tempDir('winnow-parquet-shapes-');

/** The column kinds under test, each nullable: flat bools and others, bools nested in structs and lists. */
const FIELDS = [
  new arrow.Field('flag', new arrow.Bool(), true),
  new arrow.Field('count', new arrow.Int64(), true),
  new arrow.Field('score', new arrow.Float64(), true),
  new arrow.Field('label', new arrow.Utf8(), true),
  new arrow.Field('at', new arrow.TimestampMillisecond('UTC'), true),
  new arrow.Field(
    'info',
    new arrow.Struct([
      new arrow.Field('empty', new arrow.Bool(), true),
      new arrow.Field('reason', new arrow.Utf8(), true),
    ]),
    true,
  ),
  new arrow.Field('flags', new arrow.List(new arrow.Field('element', new arrow.Bool(), true)), true),
];
const SCHEMA = new arrow.Schema(FIELDS);

type Pattern = 'all-null' | 'none-null' | 'mixed';
type Row = Record<string, unknown>;

const LENGTHS = [0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025];
const lengthArb = fc.oneof(fc.constantFrom(...LENGTHS), fc.integer({ min: 0, max: 300 }));
const patternArb = fc.constantFrom<Pattern>('all-null', 'none-null', 'mixed');

/** One value of each column for row i; `nulls` says which columns are null in this row. */
function rowOf(i: number, seed: number, nulls: (col: string) => boolean): Row {
  const bit = ((i * 2654435761 + seed) >>> 7) & 1;
  const v = (col: string, value: unknown) => (nulls(col) ? null : value);
  return {
    flag: v('flag', bit === 1),
    count: v('count', i * 3 - 7),
    score: v('score', i / 4),
    label: v('label', `r${i}`),
    at: v('at', 1_700_000_000_000 + i),
    info: v('info', { empty: v('info.empty', bit === 0), reason: v('info.reason', `why ${i}`) }),
    flags: v('flags', i % 3 === 0 ? [] : [bit === 1, null, true].slice(0, 1 + (i % 3))),
  };
}

/** A batch: `length` rows where every column follows `pattern` (mixed: a per-column pseudo-random half). */
function batchRows(length: number, pattern: Pattern, seed: number, first: number): Row[] {
  return Array.from({ length }, (_, k) => {
    const i = first + k;
    return rowOf(i, seed, (col) => {
      if (pattern === 'all-null') return true;
      if (pattern === 'none-null') return false;
      return ((i * 40503 + seed + col.length * 977) >>> 3) % 2 === 0;
    });
  });
}

/** Rows → one record batch of SCHEMA, through apache-arrow's builders. */
function recordBatch(rows: readonly Row[]): arrow.RecordBatch {
  const toArrow = (f: arrow.Field, x: unknown) =>
    x !== null && arrow.DataType.isInt(f.type) && f.type.bitWidth === 64 ? BigInt(x as number) : x;
  const children = FIELDS.map(
    (f) =>
      arrow.vectorFromArray(
        rows.map((r) => toArrow(f, r[f.name])),
        f.type,
      ).data[0]!,
  );
  const data = arrow.makeData({
    type: new arrow.Struct(FIELDS),
    length: rows.length,
    nullCount: 0,
    children,
  });
  return new arrow.RecordBatch(SCHEMA, data);
}

const batchesArb = fc.array(fc.record({ length: lengthArb, pattern: patternArb }), {
  minLength: 1,
  maxLength: 6,
});

let files = 0;
async function roundTrip(batches: Row[][], how: 'table' | 'stream'): Promise<Row[]> {
  const out = `${dir}/shape-${files++}.parquet`;
  if (how === 'table') {
    await writeParquet(out, new arrow.Table(SCHEMA, batches.map(recordBatch)));
  } else {
    // A generator, not an array: an array is one batch of rows.
    await writeParquet(
      out,
      (function* () {
        yield* batches;
      })(),
      { schema: SCHEMA, rowGroupSize: 100 },
    );
  }
  return plainRows(readParquetFile(out));
}

describe('Parquet round trip of every null shape (property)', () => {
  it('a table of many record batches and a stream of row batches read back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, fc.integer({ min: 0, max: 1000 }), async (shape, seed) => {
        let first = 0;
        const batches = shape.map(({ length, pattern }) => {
          const rows = batchRows(length, pattern, seed, first);
          first += length;
          return rows;
        });
        const expected = batches.flat();
        expect(await roundTrip(batches, 'table')).toEqual(expected);
        expect(await roundTrip(batches, 'stream')).toEqual(expected);
      }),
      { numRuns: 40, seed: 35 },
    );
  }, 300_000);

  it('a Bool column null in a whole batch of 1,024 after a batch with values (the demo export)', async () => {
    const batches = [batchRows(1024, 'mixed', 1, 0), batchRows(1024, 'all-null', 1, 1024)];
    const rows = await roundTrip(batches, 'table');
    expect(rows.length).toBe(2048);
    expect(rows.slice(1024).every((r) => Object.values(r).every((v) => v === null))).toBe(true);
    expect(rows).toEqual(batches.flat());
  });

  it('columns null in every row of every batch keep their types', async () => {
    const out = `${dir}/all-null.parquet`;
    await writeParquet(out, new arrow.Table(SCHEMA, [recordBatch(batchRows(9, 'all-null', 0, 0))]));
    const back = readParquetFile(out);
    expect(back.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual(
      FIELDS.map((f) => `${f.name}: ${f.type}`),
    );
    expect(plainRows(back)).toEqual(batchRows(9, 'all-null', 0, 0));
  });
});
