import { readFile } from 'node:fs/promises';
import {
  Field,
  Float32,
  Int32,
  Int64,
  List,
  Schema,
  Table,
  tableFromArrays,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src/core/errors.ts';
import { inferArrowSchema, rowsToArrowTable } from '../../src/io/arrow-table.ts';
import { writeJsonl } from '../../src/io/jsonl-writer.ts';
import { writeParquet } from '../../src/io/parquet-writer.ts';
import { readDataset } from '../../src/io/reader.ts';
import { collect, fieldsOf, rowsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const rows = [
  {
    id: 'q1',
    n: 1,
    x: 0.5,
    ok: true,
    s: 'héllo ✓',
    tags: ['a', 'b'],
    o: { k: 'v', z: [1.5, 2] },
    any: 1,
    e: {},
  },
  { id: 'q2', n: -7, x: 2, ok: false, s: null, tags: [], o: { k: 'w', z: [] }, any: 'two', e: {} },
  {
    id: 'q3',
    n: 2 ** 40,
    x: -1e-9,
    ok: null,
    s: '',
    tags: ['c'],
    o: { k: null, z: [3] },
    any: [1, { a: 2 }],
    e: {},
  },
];

describe('Parquet reader and writer', () => {
  it('infers an Arrow schema from rows', () => {
    const schema = inferArrowSchema(rows);
    expect(schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'id:Utf8',
      'n:Int64',
      'x:Float64',
      'ok:Bool',
      's:Utf8',
      'tags:List<Utf8>',
      'o:Struct<{k:Utf8, z:List<Float64>}>',
      'any:Utf8',
      'e:Utf8',
    ]);
    expect(
      schema.fields.filter((f) => f.metadata.get('winnow.encoding') === 'json').map((f) => f.name),
    ).toEqual(['any', 'e']);
  });

  it('round-trips JSONL → Parquet → rows, mixed-type columns included', async () => {
    const jsonl = tmp.path('rt.jsonl');
    await writeJsonl(jsonl, rows);
    const read = fieldsOf(await collect(readDataset(jsonl)));
    expect(read).toEqual(rows);
    const pq = tmp.path('rt.parquet');
    expect(await writeParquet(pq, read)).toEqual({ file: pq, rows: 3 });
    const back = await collect(readDataset(pq));
    expect(fieldsOf(back)).toEqual(rows);
    expect(rowsOf(back)).toEqual([0, 1, 2]);
    expect(back.records[0]!.source.file).toBe(pq);
    // Other tools see ordinary Parquet: the file decodes with parquet-wasm's own reader.
    expect(readParquet(await readFile(pq)).numBatches).toBeGreaterThan(0);
  });

  it('streams 25,000 rows in, and reads them back as batches of 8192, 8192, 8192, 424', async () => {
    async function* batches() {
      for (let b = 0; b < 5; b++)
        yield Array.from({ length: 5000 }, (_, i) => ({ i: b * 5000 + i, s: `r${i}` }));
    }
    const pq = tmp.path('25k.parquet');
    expect(await writeParquet(pq, batches(), { rowGroupSize: 3000, compression: 'snappy' })).toEqual({
      file: pq,
      rows: 25_000,
    });
    const got = await collect(readDataset(pq, { batchSize: 8192 }));
    expect(got.sizes).toEqual([8192, 8192, 8192, 424]);
    expect(rowsOf(got)).toEqual(Array.from({ length: 25_000 }, (_, i) => i));
    expect(got.records.map((r) => r.fields.i)).toEqual(Array.from({ length: 25_000 }, (_, i) => i));
    expect(got.records[24_999]!.fields).toEqual({ i: 24_999, s: 'r4999' });
  });

  it('writes every codec', async () => {
    for (const compression of ['zstd', 'snappy', 'gzip', 'brotli', 'lz4', 'none'] as const) {
      const pq = tmp.path(`c-${compression}.parquet`);
      await writeParquet(pq, [{ a: 1, b: 'x' }], { compression });
      expect(fieldsOf(await collect(readDataset(pq)))).toEqual([{ a: 1, b: 'x' }]);
    }
  });

  it('writes an Arrow Table as it is, keeping its types', async () => {
    const table = new Table({
      tokens: vectorFromArray([[1, 2, 3], [4]], new List(new Field('item', new Int32(), true))),
      lp: vectorFromArray([[-0.5, -1.25], [0]], new List(new Field('item', new Float32(), true))),
      big: vectorFromArray([2n ** 62n, -3n], new Int64()),
    });
    const pq = tmp.path('table.parquet');
    await writeParquet(pq, table);
    expect(fieldsOf(await collect(readDataset(pq)))).toEqual([
      { tokens: [1, 2, 3], lp: [-0.5, -1.25], big: '4611686018427387904' },
      { tokens: [4], lp: [0], big: -3 },
    ]);
  });

  it('converts rows to a given schema, and names the row and column that does not fit', async () => {
    const schema = new Schema([new Field('id', new Utf8(), false), new Field('n', new Int64(), true)]);
    const t = rowsToArrowTable([{ id: 'a', n: 1, extra: 'dropped' }, { id: 2 }], schema);
    expect(t.toArray().map((r) => r.toJSON())).toEqual([
      { id: 'a', n: 1n },
      { id: '2', n: null },
    ]);
    async function* bad() {
      yield [{ n: 1 }, { n: 2 }];
      yield [{ n: 3 }, { n: 'four' }];
    }
    const pq = tmp.path('bad.parquet');
    const err = await writeParquet(pq, bad()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).message).toBe(`${pq}:row 3: column 'n': expected an integer, got string four`);
    await expect(readFile(pq)).rejects.toThrow('ENOENT'); // nothing half-written is left behind
  });

  it('writes an empty stream as an empty file that reads back as no records', async () => {
    const pq = tmp.path('empty.parquet');
    expect(await writeParquet(pq, (async function* () {})())).toEqual({ file: pq, rows: 0 });
    expect((await collect(readDataset(pq))).batches).toEqual([]);
  });

  it('reports a truncated or foreign file as a DataError naming the file', async () => {
    const good = tmp.path('good.parquet');
    await writeParquet(good, tableFromArrays({ a: Float64Array.from({ length: 5000 }, (_, i) => i) }));
    const bytes = await readFile(good);
    const half = await writeBytes(tmp.path('half.parquet'), bytes.subarray(0, bytes.length >> 1));
    await expect(collect(readDataset(half))).rejects.toThrow(
      `${half}: not a readable Parquet file (truncated or corrupt?): Parquet error: Invalid Parquet file. Corrupt footer`,
    );
    const text = await writeBytes(tmp.path('text.parquet'), 'id,text\n1,hello\n');
    await expect(collect(readDataset(text))).rejects.toBeInstanceOf(DataError);
  });

  it('reports corrupt pages as a DataError instead of crashing', async () => {
    const good = tmp.path('pages.parquet');
    await writeParquet(
      good,
      Array.from({ length: 3000 }, (_, i) => ({ i, s: `text ${i}` })),
    );
    const bytes = Buffer.from(await readFile(good));
    for (let i = 64; i < bytes.length - 1500; i += 5) bytes[i] = bytes[i]! ^ 0x5a;
    const bad = await writeBytes(tmp.path('pages-bad.parquet'), bytes);
    const err = await collect(readDataset(bad)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect(
      (err as DataError).message.startsWith(
        `${bad}:row 0: cannot decode Parquet row group 0 (corrupt data?):`,
      ),
    ).toBe(true);
    // The decoder still works afterwards.
    expect((await collect(readDataset(good))).records).toHaveLength(3000);
  });
});
