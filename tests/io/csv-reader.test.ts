import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferCsvValue, parseCsv, splitCsvRecord } from '../../src/io/csv-reader.ts';
import { readDataset } from '../../src/io/reader.ts';
import { chunked, collect, fieldsOf, rowsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const ctx = {
  file: 'mem.csv',
  batchSize: 8192,
  maxLineBytes: 64 << 20,
  maxDepth: 1000,
  delimiter: ',',
  header: true,
  inferTypes: true,
};
const parse = (text: string | Buffer, cuts: number[] = [], extra: Partial<typeof ctx> = {}) =>
  collect(parseCsv(chunked(Buffer.from(text), cuts), { ...ctx, ...extra }));

/** RFC 4180 encoding of one field, for the round-trip property. */
const encode = (f: string) => (/[",\r\n]/.test(f) || f === '' ? `"${f.replaceAll('"', '""')}"` : f);

describe('CSV reader', () => {
  it('reads quoted fields, escaped quotes, embedded newlines, CRLF and a BOM; rows are physical start lines', async () => {
    const path = await writeBytes(
      tmp.path('a.csv'),
      '\uFEFFid,text,score\r\n1,"hello, ""world""",0.5\r\n2,"two\r\nlines\nthree",7\r\n\r\n3,,-2\r\n4,plain "quote" inside,true\r\n',
    );
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([
      { id: 1, text: 'hello, "world"', score: 0.5 },
      { id: 2, text: 'two\r\nlines\nthree', score: 7 },
      { id: 3, text: '', score: -2 },
      { id: 4, text: 'plain "quote" inside', score: true },
    ]);
    expect(rowsOf(got)).toEqual([2, 3, 7, 8]);
    expect(got.records[0]!.source.file).toBe(path);
    expect(got.rejected).toEqual([]);
  });

  it('rejects ragged rows with the field counts, and keeps the others', async () => {
    const got = await parse('a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n');
    expect(fieldsOf(got)).toEqual([
      { a: 1, b: 2, c: 3 },
      { a: 10, b: 11, c: 12 },
    ]);
    expect(got.rejected.map(({ step, row, reason, payload }) => ({ step, row, reason, payload }))).toEqual([
      { step: 'read:csv', row: 3, reason: 'row has 2 fields, header has 3', payload: '4,5' },
      { step: 'read:csv', row: 4, reason: 'row has 4 fields, header has 3', payload: '6,7,8,9' },
    ]);
  });

  it('rejects malformed quoting, invalid UTF-8 and an unterminated quote at the end', async () => {
    const bytes = Buffer.concat([
      Buffer.from('a,b\n"x"y,1\n'),
      Buffer.from('caf'),
      Buffer.from([0xe9]),
      Buffer.from(',2\nok,3\n"open,4\nmore\n'),
    ]);
    const got = await parse(bytes);
    expect(fieldsOf(got)).toEqual([{ a: 'ok', b: 3 }]);
    expect(rowsOf(got)).toEqual([4]);
    expect(got.rejected.map((r) => [r.row, r.reason, r.payload])).toEqual([
      [2, 'malformed quotes: text after the closing quote in field 1', '"x"y,1'],
      [3, 'invalid UTF-8', 'caf\uFFFD,2'],
      [5, 'unterminated quoted field (the file ends inside quotes)', '"open,4\nmore\n'],
    ]);
  });

  it('reads nothing from an empty file and no records from a header-only file', async () => {
    const empty = await writeBytes(tmp.path('empty.csv'), '');
    expect((await collect(readDataset(empty))).batches).toEqual([]);
    const headerOnly = await writeBytes(tmp.path('header.csv'), 'a,b,c\r\n');
    expect((await collect(readDataset(headerOnly))).batches).toEqual([]);
    expect((await parse('a,b')).batches).toEqual([]);
  });

  it('infers numbers and booleans only when lossless, and can keep every value as text', async () => {
    const text = 'v\n42\n-3.25\n007\n1.50\n1e3\n12345678901234567890\ntrue\nFALSE\n\n-\nNaN\n';
    const inferred = (await parse(text)).records.map((r) => r.fields.v);
    expect(inferred).toEqual([
      42,
      -3.25,
      '007',
      '1.50',
      '1e3',
      '12345678901234567890',
      true,
      'FALSE',
      '-',
      'NaN',
    ]);
    const raw = (await parse(text, [], { inferTypes: false })).records.map((r) => r.fields.v);
    expect(raw).toEqual([
      '42',
      '-3.25',
      '007',
      '1.50',
      '1e3',
      '12345678901234567890',
      'true',
      'FALSE',
      '-',
      'NaN',
    ]);
    expect(inferCsvValue('')).toBe('');
    expect(inferCsvValue('-0')).toBe('-0');
  });

  it('reads TSV by extension and other delimiters by option', async () => {
    const tsv = await writeBytes(tmp.path('a.tsv'), 'q\ta\nwhat, then?\t"x\ty"\n');
    expect(fieldsOf(await collect(readDataset(tsv)))).toEqual([{ q: 'what, then?', a: 'x\ty' }]);
    const semi = await writeBytes(tmp.path('semi.csv'), 'q;a\n1,5;2\n');
    expect(fieldsOf(await collect(readDataset(semi, { csv: { delimiter: ';' } })))).toEqual([
      { q: '1,5', a: 2 },
    ]);
  });

  it('names columns col1..colN without a header; ragged rows are measured against the first row', async () => {
    const got = await parse('x,1\ny,2\nz\n', [], { header: false });
    expect(fieldsOf(got)).toEqual([
      { col1: 'x', col2: 1 },
      { col1: 'y', col2: 2 },
    ]);
    expect(rowsOf(got)).toEqual([1, 2]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([[3, 'row has 1 fields, first row has 2']]);
  });

  it('names empty header cells col<N> and refuses duplicate names', async () => {
    expect(fieldsOf(await parse(',a\n0,x\n'))).toEqual([{ col1: 0, a: 'x' }]);
    await expect(parse('a,b,a\n1,2,3\n')).rejects.toThrow(
      "mem.csv: duplicate column name 'a' in the header (columns 1 and 3)",
    );
    await expect(parse('"a,b\n')).rejects.toThrow(
      'mem.csv:row 1: cannot read the header row: unterminated quoted field (the file ends inside quotes)',
    );
    await expect(parse('"a"b,c\n1,2\n')).rejects.toThrow(
      'mem.csv:row 1: cannot read the header row: malformed quotes: text after the closing quote in field 1',
    );
  });

  it('reads a 10 MB field, and rejects the record when over maxLineBytes', async () => {
    const big = 'z'.repeat(10 * 1024 * 1024);
    const path = await writeBytes(tmp.path('big.csv'), `id,text\n1,"${big}"\n2,small\n`);
    const ok = await collect(readDataset(path));
    expect(ok.records.map((r) => [r.fields.id, (r.fields.text as string).length])).toEqual([
      [1, 10 * 1024 * 1024],
      [2, 5],
    ]);
    const capped = await collect(readDataset(path, { maxLineBytes: 1 << 20 }));
    expect(fieldsOf(capped)).toEqual([{ id: 2, text: 'small' }]);
    expect(capped.rejected.map((r) => [r.row, r.reason])).toEqual([
      [2, `record is ${10 * 1024 * 1024 + 4} bytes, over maxLineBytes (1048576)`],
    ]);
    expect(capped.rejected[0]!.payload.endsWith(`zz… [${10 * 1024 * 1024 + 4 - 4096} more bytes]`)).toBe(
      true,
    );
  });

  it('yields 25,000 rows as batches of 8192, 8192, 8192, 424', async () => {
    const lines = ['i,s', ...Array.from({ length: 25_000 }, (_, i) => `${i},"r ${i}"`)];
    const path = await writeBytes(tmp.path('25k.csv'), `${lines.join('\n')}\n`);
    const got = await collect(readDataset(path));
    expect(got.sizes).toEqual([8192, 8192, 8192, 424]);
    expect(got.records[24_999]!.fields).toEqual({ i: 24_999, s: 'r 24999' });
    expect(got.records[24_999]!.source.row).toBe(25_001);
  });

  it('splits records per RFC 4180', () => {
    expect(splitCsvRecord('a,"b,c",,"d""e"', ',')).toEqual(['a', 'b,c', '', 'd"e']);
    expect(splitCsvRecord('a,', ',')).toEqual(['a', '']);
    expect(splitCsvRecord('"a",', ',')).toEqual(['a', '']);
    expect(splitCsvRecord('', ',')).toEqual(['']);
    expect(splitCsvRecord('"unclosed', ',')).toBe('unterminated quoted field 1');
  });

  it('round-trips any table of strings through RFC 4180 encoding, however the bytes are chunked', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ',', '"', '\n', '\r\n', ' ', 'x') });
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 4 })
          .chain((w) => fc.array(fc.array(cell, { minLength: w, maxLength: w }), { maxLength: 6 })),
        fc.array(fc.nat(200), { maxLength: 8 }),
        fc.boolean(),
        async (rows, cuts, crlf) => {
          const width = rows[0]?.length ?? 1;
          const header = Array.from({ length: width }, (_, j) => `h${j}`);
          const eol = crlf ? '\r\n' : '\n';
          const text = [header, ...rows].map((r) => r.map(encode).join(',')).join(eol) + eol;
          const got = await parse(text, cuts, { inferTypes: false });
          expect(got.rejected).toEqual([]);
          expect(got.records.map((r) => header.map((h) => r.fields[h]))).toEqual(rows);
          const whole = await parse(text, [], { inferTypes: false });
          expect(got.records).toEqual(whole.records);
        },
      ),
      { numRuns: 200, seed: 5 },
    );
  });
});
