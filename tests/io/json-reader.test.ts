import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src/core/errors.ts';
import { parseJsonArray } from '../../src/io/json-reader.ts';
import { readDataset } from '../../src/io/reader.ts';
import { chunked, collect, fieldsOf, rowsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const ctx = { file: 'mem.json', batchSize: 8192, maxLineBytes: 64 << 20, maxDepth: 1000 };
const parse = (text: string | Buffer, cuts: number[] = [], extra: { jsonPath?: string } = {}) =>
  collect(parseJsonArray(chunked(Buffer.from(text), cuts), { ...ctx, ...extra }));

describe('JSON array reader', () => {
  it('reads the elements of a top-level array with 0-based indices', async () => {
    const path = await writeBytes(
      tmp.path('a.json'),
      '\uFEFF[\n  {"a": 1},\n  {"s": "]},[\\"{"},\n  {"x": [1, {"y": [2]}], "z": "\\\\"}\n]\n',
    );
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { s: ']},["{' }, { x: [1, { y: [2] }], z: '\\' }]);
    expect(rowsOf(got)).toEqual([0, 1, 2]);
    expect(got.records[0]!.source.file).toBe(path);
    expect(got.rejected).toEqual([]);
  });

  it('rejects non-object elements and bad elements by index, keeping the rest', async () => {
    const got = await parse('[{"a":1}, 2, "s", null, [1], {"b":}, {"c":3},, true]');
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(rowsOf(got)).toEqual([0, 6]);
    expect(got.rejected.map(({ step, row, reason, payload }) => ({ step, row, reason, payload }))).toEqual([
      { step: 'read:json', row: 1, reason: 'expected a JSON object, got a number', payload: '2' },
      { step: 'read:json', row: 2, reason: 'expected a JSON object, got a string', payload: '"s"' },
      { step: 'read:json', row: 3, reason: 'expected a JSON object, got null', payload: 'null' },
      { step: 'read:json', row: 4, reason: 'expected a JSON object, got an array', payload: '[1]' },
      {
        step: 'read:json',
        row: 5,
        reason: 'invalid JSON: Unexpected token \'}\', "{"b":}" is not valid JSON',
        payload: '{"b":}',
      },
      { step: 'read:json', row: 7, reason: 'empty array element', payload: '' },
      { step: 'read:json', row: 8, reason: 'expected a JSON object, got a boolean', payload: 'true' },
    ]);
  });

  it('handles an empty array, an empty file and whitespace only', async () => {
    expect((await parse('[]')).batches).toEqual([]);
    expect((await parse('  [ \n ]  \n')).batches).toEqual([]);
    expect((await parse('')).batches).toEqual([]);
    expect((await parse('  \n ')).batches).toEqual([]);
  });

  it('reports a truncated array: the cut element, or the missing bracket', async () => {
    const cutInside = await parse('[{"a":1},{"b":[1,2');
    expect(fieldsOf(cutInside)).toEqual([{ a: 1 }]);
    expect(cutInside.rejected.map((r) => [r.row, r.reason, r.payload])).toEqual([
      [1, 'file ends inside this element (truncated file?)', '{"b":[1,2'],
    ]);
    const cutAfter = await parse('[{"a":1},');
    expect(cutAfter.rejected.map((r) => [r.row, r.reason])).toEqual([
      [-1, 'file ends before the top-level array is closed (truncated file?)'],
    ]);
  });

  it('reports text after the array once', async () => {
    const got = await parse('[{"a":1}] [{"b":2}] x');
    expect(fieldsOf(got)).toEqual([{ a: 1 }]);
    expect(got.rejected.map((r) => [r.row, r.reason, r.payload])).toEqual([
      [-1, 'unexpected text after the top-level array', '[{"b":2}] x'],
    ]);
  });

  it('rejects elements with invalid UTF-8 and elements nested too deeply', async () => {
    const bytes = Buffer.concat([
      Buffer.from('[{"a":"ok"},{"b":"'),
      Buffer.from([0xe9]),
      Buffer.from(`"},{"d":${'['.repeat(2000)}${']'.repeat(2000)}},{"c":1}]`),
    ]);
    const got = await parse(bytes);
    expect(fieldsOf(got)).toEqual([{ a: 'ok' }, { c: 1 }]);
    expect(rowsOf(got)).toEqual([0, 3]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([
      [1, 'invalid UTF-8'],
      [2, 'JSON nested deeper than 1000 levels (maxDepth)'],
    ]);
  });

  it('rejects an element over maxLineBytes with a bounded payload', async () => {
    const got = await collect(
      parseJsonArray(chunked(Buffer.from(`[{"a":1},{"big":"${'y'.repeat(5000)}"},{"c":2}]`), [100, 3000]), {
        ...ctx,
        maxLineBytes: 1000,
      }),
    );
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { c: 2 }]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([
      [1, 'element is 5010 bytes, over maxLineBytes (1000)'],
    ]);
    const payload = got.rejected[0]!.payload;
    expect(payload.length).toBe(4096 + '… [914 more bytes]'.length);
    expect(payload.endsWith('yyyy… [914 more bytes]')).toBe(true);
  });

  it('reads the array under a top-level key with jsonPath', async () => {
    const text =
      '{"version": "1.0", "meta": {"data": [0]}, "data": [{"q": "a"}, 5, {"q": "b"}], "tail": {"x": [1]}}';
    const got = await parse(text, [], { jsonPath: 'data' });
    expect(fieldsOf(got)).toEqual([{ q: 'a' }, { q: 'b' }]);
    expect(rowsOf(got)).toEqual([0, 2]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([[1, 'expected a JSON object, got a number']]);
    const escapedKey = await parse('{"d\\u0061ta": [{"q": 1}]}', [], { jsonPath: 'data' });
    expect(fieldsOf(escapedKey)).toEqual([{ q: 1 }]);
  });

  it('fails clearly when jsonPath names no array', async () => {
    await expect(parse('{"a": 1, "rows": [{"q": 1}]}', [], { jsonPath: 'data' })).rejects.toThrow(
      "mem.json: jsonPath 'data': no such key in the top-level object (top-level keys: 'a', 'rows')",
    );
    await expect(parse('{"data": {"q": 1}}', [], { jsonPath: 'data' })).rejects.toThrow(
      "mem.json: top-level key 'data' holds an object, expected an array of rows",
    );
  });

  it('reads JSON Lines content under a .json name, and asks for jsonPath for a pretty-printed object', async () => {
    const lines = await collect(readDataset(await writeBytes(tmp.path('hf.json'), '{"a":1}\n{"a":2}\n')));
    expect(fieldsOf(lines)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(rowsOf(lines)).toEqual([1, 2]);
    const pretty = await writeBytes(tmp.path('pretty.json'), '{\n  "data": [{"a": 1}]\n}\n');
    await expect(collect(readDataset(pretty))).rejects.toThrow(
      `${pretty}: the top-level JSON value is an object; set jsonPath to the key that holds the array of rows (e.g. 'data')`,
    );
    expect(fieldsOf(await collect(readDataset(pretty, { jsonPath: 'data' })))).toEqual([{ a: 1 }]);
  });

  it('fails with a DataError when the file holds a scalar', async () => {
    const err = await parse('42').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).message).toBe("mem.json: expected a top-level JSON array, found '4'");
  });

  it('yields 25,000 elements as batches of 8192, 8192, 8192, 424', async () => {
    const rows = Array.from({ length: 25_000 }, (_, i) => ({ i, t: `[${i}]` }));
    const path = await writeBytes(tmp.path('25k.json'), JSON.stringify(rows, null, 1));
    const got = await collect(readDataset(path, { batchSize: 8192 }));
    expect(got.sizes).toEqual([8192, 8192, 8192, 424]);
    expect(fieldsOf(got)).toEqual(rows);
    expect(rowsOf(got)).toEqual(rows.map((r) => r.i));
  });

  it('gives the same result however the bytes are cut into chunks', async () => {
    const valueArb = fc.jsonValue({ maxDepth: 3 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.dictionary(fc.string(), valueArb, { maxKeys: 3 }), valueArb), { maxLength: 8 }),
        fc.array(fc.nat(300), { maxLength: 10 }),
        fc.boolean(),
        async (items, cuts, wrap) => {
          const text = wrap
            ? JSON.stringify({ x: [1, '[', { y: '"' }], data: items })
            : JSON.stringify(items, null, 2);
          const opts = wrap ? { jsonPath: 'data' } : {};
          const whole = await parse(text, [], opts);
          const cut = await parse(text, cuts, opts);
          expect(cut.records).toEqual(whole.records);
          expect(cut.rejected).toEqual(whole.rejected);
          const objects = items.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
          expect(fieldsOf(whole)).toEqual(objects.map((o) => JSON.parse(JSON.stringify(o))));
          expect(whole.records.length + whole.rejected.length).toBe(items.length);
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });
});
