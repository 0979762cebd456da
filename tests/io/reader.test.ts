import { mkdir } from 'node:fs/promises';
import { relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../src/core/errors.ts';
import { detectFormat, readDataset } from '../../src/io/reader.ts';
import { collect, fieldsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const EXPECTED = '.jsonl, .ndjson, .json, .csv, .tsv (optionally .gz), .parquet, .arrow, .feather, .ipc';

describe('readDataset', () => {
  it('detects the format from the extension, looking through .gz', () => {
    const cases: Array<[string, string]> = [
      ['a.jsonl', 'jsonl'],
      ['a.NDJSON', 'jsonl'],
      ['a.jsonl.gz', 'jsonl'],
      ['dir.v2/a.json', 'json'],
      ['a.json.gz', 'json'],
      ['a.csv', 'csv'],
      ['a.tsv', 'csv'],
      ['a.csv.gz', 'csv'],
      ['a.parquet', 'parquet'],
      ['a.arrow', 'arrow'],
      ['a.feather', 'arrow'],
      ['a.ipc', 'arrow'],
    ];
    expect(cases.map(([p]) => detectFormat(p))).toEqual(cases.map(([, f]) => f));
    expect(() => detectFormat('data.xlsx')).toThrow(
      `data.xlsx: cannot tell the dataset format from the extension '.xlsx'; expected one of ${EXPECTED}, or pass format`,
    );
    expect(() => detectFormat('README')).toThrow(DataError);
  });

  it('fails with a DataError naming the path for a missing file and a directory', async () => {
    const missing = tmp.path('nope.jsonl');
    await expect(collect(readDataset(missing))).rejects.toThrow(
      `${missing}: file not found; expected a dataset file (${EXPECTED})`,
    );
    const dir = tmp.path('folder.jsonl');
    await mkdir(dir);
    const err = await collect(readDataset(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).file).toBe(dir);
    expect((err as DataError).message).toBe(`${dir}: is a directory; expected a dataset file (${EXPECTED})`);
  });

  it('yields no batches for an empty file in any format', async () => {
    for (const name of ['e.jsonl', 'e.json', 'e.csv', 'e.tsv', 'e.parquet', 'e.arrow', 'e.jsonl.gz']) {
      const path = await writeBytes(tmp.path(name), '');
      expect((await collect(readDataset(path))).batches).toEqual([]);
    }
    const gzEmpty = await writeBytes(tmp.path('e2.csv.gz'), gzipSync(''));
    expect((await collect(readDataset(gzEmpty))).batches).toEqual([]);
  });

  it('puts the absolute path in source.file for a relative path', async () => {
    const path = await writeBytes(tmp.path('rel.jsonl'), '{"a":1}\n');
    const got = await collect(readDataset(relative(process.cwd(), path)));
    expect(got.records[0]!.source).toEqual({ file: path, row: 1 });
  });

  it('honours an explicit format, and sniffs gzip by its magic bytes', async () => {
    const path = await writeBytes(tmp.path('data.txt'), 'a,b\n1,2\n');
    expect(fieldsOf(await collect(readDataset(path, { format: 'csv' })))).toEqual([{ a: 1, b: 2 }]);
    const gz = await writeBytes(tmp.path('data.json'), gzipSync('[{"a":1},{"a":2}]'));
    expect(fieldsOf(await collect(readDataset(gz)))).toEqual([{ a: 1 }, { a: 2 }]);
    const gzCsv = await writeBytes(tmp.path('d.csv.gz'), gzipSync('a\nx\n'));
    expect(fieldsOf(await collect(readDataset(gzCsv)))).toEqual([{ a: 'x' }]);
    const gzParquet = await writeBytes(tmp.path('d.parquet.gz'), gzipSync('PAR1'));
    await expect(collect(readDataset(gzParquet))).rejects.toThrow(
      `${gzParquet}: gzip-compressed parquet files are not supported; decompress it first`,
    );
  });

  it('validates options with ConfigErrors naming the option', async () => {
    const path = await writeBytes(tmp.path('o.jsonl'), '{"a":1}\n');
    const bad: Array<[object, string]> = [
      [{ batchSize: 0 }, 'read.batchSize: Too small: expected number to be >0'],
      [
        { format: 'xml' },
        'read.format: Invalid option: expected one of "jsonl"|"json"|"csv"|"parquet"|"arrow"',
      ],
      [
        { csv: { delimiter: '"' } },
        'read.csv.delimiter: must be one ASCII character other than a quote or a line break',
      ],
      [{ batchsize: 10 }, 'read: Unrecognized key: "batchsize"'],
    ];
    for (const [opts, message] of bad) {
      const err = await collect(readDataset(path, opts as never)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe(message);
    }
  });
});
