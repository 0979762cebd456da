import { writeFile } from 'node:fs/promises';
import {
  DateDay,
  Dictionary,
  Field,
  Int32,
  Int64,
  List,
  Struct,
  Table,
  TimestampMillisecond,
  tableFromArrays,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src/core/errors.ts';
import { readDataset } from '../../src/io/reader.ts';
import { collect, fieldsOf, rowsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const table25k = () =>
  tableFromArrays({
    i: Int32Array.from({ length: 25_000 }, (_, i) => i),
    s: Array.from({ length: 25_000 }, (_, i) => `s${i}`),
  });

describe('Arrow IPC reader', () => {
  it('reads the file and the stream format batch by batch: 25,000 rows → 8192, 8192, 8192, 424', async () => {
    const t = table25k();
    for (const [name, format] of [
      ['a.arrow', 'file'],
      ['a.feather', 'file'],
      ['a.ipc', 'stream'],
    ] as const) {
      const path = await writeBytes(tmp.path(name), tableToIPC(t, format));
      const got = await collect(readDataset(path));
      expect(got.sizes).toEqual([8192, 8192, 8192, 424]);
      expect(rowsOf(got)).toEqual(Array.from({ length: 25_000 }, (_, i) => i));
      expect(got.records[24_999]).toEqual({
        fields: { i: 24_999, s: 's24999' },
        source: { file: path, row: 24_999 },
      });
    }
  });

  it('turns Arrow values into plain JSON-friendly values', async () => {
    const t = new Table({
      big: vectorFromArray([1n, 2n ** 60n, null], new Int64()),
      ts: vectorFromArray(
        [new Date(0), new Date(Date.UTC(2024, 1, 29, 12)), null],
        new TimestampMillisecond(),
      ),
      day: vectorFromArray([new Date(Date.UTC(2024, 0, 2)), null, null], new DateDay()),
      list: vectorFromArray([[1, 2], [], null], new List(new Field('item', new Int32(), true))),
      st: vectorFromArray(
        [{ a: 'x', b: [1n] }, { a: null, b: [] }, null],
        new Struct([
          new Field('a', new Utf8(), true),
          new Field('b', new List(new Field('item', new Int64(), true)), true),
        ]),
      ),
      cat: vectorFromArray(['red', 'blue', 'red'], new Dictionary(new Utf8(), new Int32())),
    });
    const path = await writeBytes(tmp.path('types.arrow'), tableToIPC(t, 'file'));
    expect(fieldsOf(await collect(readDataset(path)))).toEqual([
      {
        big: 1,
        ts: '1970-01-01T00:00:00.000Z',
        day: '2024-01-02',
        list: [1, 2],
        st: { a: 'x', b: [1] },
        cat: 'red',
      },
      {
        big: '1152921504606846976',
        ts: '2024-02-29T12:00:00.000Z',
        day: null,
        list: [],
        st: { a: null, b: [] },
        cat: 'blue',
      },
      { big: null, ts: null, day: null, list: null, st: null, cat: 'red' },
    ]);
  });

  it('reports truncated files (file and stream format) as DataErrors naming the file', async () => {
    const t = table25k();
    const file = tableToIPC(t, 'file');
    const halfFile = await writeBytes(tmp.path('half.arrow'), file.subarray(0, file.length >> 1));
    await expect(collect(readDataset(halfFile))).rejects.toThrow(
      `${halfFile}: truncated Arrow IPC file: it starts with ARROW1 but has no footer (cut short while copying?)`,
    );
    const stream = tableToIPC(t, 'stream');
    const halfStream = await writeBytes(tmp.path('half.ipc'), stream.subarray(0, stream.length >> 1));
    const err = await collect(readDataset(halfStream)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).message).toMatch(
      new RegExp(
        `^${halfStream}:row 0: cannot read Arrow IPC data \\(truncated or corrupt\\?\\): Expected to read \\d+ bytes for message body, but only read \\d+\\.$`,
      ),
    );
  });

  it('refuses Feather v1 and non-Arrow bytes with a DataError', async () => {
    const v1 = tmp.path('old.feather');
    await writeFile(v1, Buffer.concat([Buffer.from('FEA1'), Buffer.alloc(64)]));
    await expect(collect(readDataset(v1))).rejects.toThrow(
      `${v1}: Feather v1 is not supported; re-save it as Feather v2 / Arrow IPC`,
    );
    const junk = await writeBytes(tmp.path('junk.arrow'), 'not arrow at all, just text');
    await expect(collect(readDataset(junk))).rejects.toBeInstanceOf(DataError);
  });
});
