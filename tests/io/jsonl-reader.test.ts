import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonl } from '../../src/io/jsonl-reader.ts';
import { readDataset } from '../../src/io/reader.ts';
import { chunked, collect, fieldsOf, rowsOf, tempDir, writeBytes } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

const ctx = { file: 'mem.jsonl', batchSize: 8192, maxLineBytes: 64 << 20, maxDepth: 1000 };

describe('JSONL reader', () => {
  it('reads objects with 1-based line numbers, skipping blank lines, tolerating BOMs and CRLF', async () => {
    const path = await writeBytes(
      tmp.path('basic.jsonl'),
      '\uFEFF{"a":1}\r\n\r\n   \n{"b":"x y","c":[1,{"d":null}]}\r\n\t\n\uFEFF{"e":true}',
    );
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { b: 'x y', c: [1, { d: null }] }, { e: true }]);
    expect(rowsOf(got)).toEqual([1, 4, 6]);
    expect(got.records.every((r) => r.source.file === path)).toBe(true);
    expect(got.rejected).toEqual([]);
  });

  it('rejects invalid JSON and non-objects with their line numbers and exact reasons', async () => {
    const path = await writeBytes(
      tmp.path('bad.jsonl'),
      ['{"ok":1}', '{bad', '[1,2]', '3', '"text"', 'null', '{"ok":2}', '{"a":1}}'].join('\n'),
    );
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ ok: 1 }, { ok: 2 }]);
    expect(rowsOf(got)).toEqual([1, 7]);
    expect(got.rejected.map(({ row, reason, payload, step }) => ({ row, reason, payload, step }))).toEqual([
      {
        step: 'read:jsonl',
        row: 2,
        reason: "invalid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
        payload: '{bad',
      },
      { step: 'read:jsonl', row: 3, reason: 'expected a JSON object, got an array', payload: '[1,2]' },
      { step: 'read:jsonl', row: 4, reason: 'expected a JSON object, got a number', payload: '3' },
      { step: 'read:jsonl', row: 5, reason: 'expected a JSON object, got a string', payload: '"text"' },
      { step: 'read:jsonl', row: 6, reason: 'expected a JSON object, got null', payload: 'null' },
      {
        step: 'read:jsonl',
        row: 8,
        reason:
          'invalid JSON: Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)',
        payload: '{"a":1}}',
      },
    ]);
    expect(got.rejected.every((r) => r.file === path)).toBe(true);
  });

  it('rejects lines with invalid UTF-8 (Latin-1 bytes) and keeps the lines around them', async () => {
    const latin1 = Buffer.from('{"name":"caf\xe9"}', 'latin1'); // 0xE9 alone is not UTF-8
    const lines = [
      Buffer.from('{"i":1}'),
      latin1,
      Buffer.from('{"name":"café ✓"}'),
      Buffer.from([0xff, 0xfe]),
    ];
    const path = await writeBytes(
      tmp.path('latin1.jsonl'),
      Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])),
    );
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ i: 1 }, { name: 'café ✓' }]);
    expect(rowsOf(got)).toEqual([1, 3]);
    expect(got.rejected.map(({ row, reason, payload }) => ({ row, reason, payload }))).toEqual([
      { row: 2, reason: 'invalid UTF-8', payload: '{"name":"caf\uFFFD"}' },
      { row: 4, reason: 'invalid UTF-8', payload: '\uFFFD\uFFFD' },
    ]);
  });

  it('finds an invalid line inside a big chunk of valid lines (the per-line fallback path)', async () => {
    const good = Array.from({ length: 5000 }, (_, i) => `{"i":${i}}`);
    const bytes = Buffer.concat([
      Buffer.from(`${good.slice(0, 2500).join('\n')}\n`),
      Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d, 0x0a]), // {"x":"<C3>"} truncated sequence
      Buffer.from(`${good.slice(2500).join('\n')}\n`),
    ]);
    const got = await collect(parseJsonl(chunked(bytes, []), ctx));
    expect(got.records.length).toBe(5000);
    expect(got.records[2500]!.source.row).toBe(2502);
    expect(got.records[2500]!.fields).toEqual({ i: 2500 });
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([[2501, 'invalid UTF-8']]);
  });

  it('reads a 10 MB line, and rejects it with a bounded payload when over maxLineBytes', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const path = await writeBytes(tmp.path('big.jsonl'), `{"a":1}\n{"big":"${big}"}\n{"a":2}\n`);
    const ok = await collect(readDataset(path));
    expect(ok.records.map((r) => r.source.row)).toEqual([1, 2, 3]);
    expect((ok.records[1]!.fields.big as string).length).toBe(10 * 1024 * 1024);
    expect(ok.rejected).toEqual([]);

    const capped = await collect(readDataset(path, { maxLineBytes: 1024 * 1024 }));
    expect(fieldsOf(capped)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(rowsOf(capped)).toEqual([1, 3]);
    expect(capped.rejected).toHaveLength(1);
    const r = capped.rejected[0]!;
    expect(r.row).toBe(2);
    expect(r.reason).toBe(`line is ${10 * 1024 * 1024 + 10} bytes, over maxLineBytes (1048576)`);
    expect(r.payload.startsWith('{"big":"xxxx')).toBe(true);
    expect(r.payload.endsWith(`xxxx… [${10 * 1024 * 1024 + 10 - 4096} more bytes]`)).toBe(true);
    expect(r.payload.length).toBe(4096 + `… [${10 * 1024 * 1024 + 10 - 4096} more bytes]`.length);
  });

  it('rejects a line over maxLineBytes that sits inside one chunk', async () => {
    const got = await collect(
      parseJsonl(chunked(Buffer.from('{"a":1}\n{"b":"0123456789"}\n{"c":3}\n'), []), {
        ...ctx,
        maxLineBytes: 12,
      }),
    );
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([
      [2, 'line is 18 bytes, over maxLineBytes (12)'],
    ]);
  });

  it('rejects deeply nested lines instead of crashing, and goes on reading', async () => {
    const n = 100_000;
    const deepArray = `${'['.repeat(n)}${']'.repeat(n)}`;
    const deepInObject = `{"a":${deepArray}}`;
    const path = await writeBytes(tmp.path('deep.jsonl'), `${deepArray}\n${deepInObject}\n{"ok":true}\n`);
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ ok: true }]);
    expect(rowsOf(got)).toEqual([3]);
    expect(got.rejected.map((r) => [r.row, r.reason])).toEqual([
      [1, 'expected a JSON object, got an array'],
      [2, 'JSON nested deeper than 1000 levels (maxDepth)'],
    ]);
    // Brackets inside strings do not count as nesting.
    const inString = `{"s":"${'['.repeat(5000)}"}`;
    const str = await collect(parseJsonl(chunked(Buffer.from(inString), []), ctx));
    expect(str.records).toHaveLength(1);
  });

  it('yields batches of exactly batchSize: 25,000 rows → 8192, 8192, 8192, 424', async () => {
    const lines = Array.from({ length: 25_000 }, (_, i) => JSON.stringify({ i, s: `row ${i}` }));
    const path = await writeBytes(tmp.path('25k.jsonl'), `${lines.join('\n')}\n`);
    const got = await collect(readDataset(path, { batchSize: 8192 }));
    expect(got.sizes).toEqual([8192, 8192, 8192, 424]);
    expect(rowsOf(got)).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1));
    expect(got.records[24_999]!.fields).toEqual({ i: 24_999, s: 'row 24999' });
  });

  it('reads gzip-compressed JSONL (.jsonl.gz) the same as plain', async () => {
    const text = '{"a":1}\n{oops\n{"a":2}\n';
    const path = await writeBytes(tmp.path('z.jsonl.gz'), gzipSync(text));
    const got = await collect(readDataset(path));
    expect(fieldsOf(got)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(got.rejected.map((r) => r.row)).toEqual([2]);
  });

  it('reports a corrupt .gz file as a DataError naming the file', async () => {
    const good = gzipSync('{"a":1}\n'.repeat(1000));
    const path = await writeBytes(tmp.path('cut.jsonl.gz'), good.subarray(0, good.length - 10));
    await expect(collect(readDataset(path))).rejects.toThrow(
      `${path}: cannot read gzip data (corrupt or truncated .gz file?): unexpected end of file`,
    );
  });

  it.skipIf(!existsSync('/work/shared/datasets/gsm8k/test.jsonl'))(
    'reads the real GSM8K test split: 1,319 records with question and answer',
    async () => {
      const got = await collect(readDataset('/work/shared/datasets/gsm8k/test.jsonl'));
      expect(got.records).toHaveLength(1319);
      expect(got.rejected).toEqual([]);
      expect(got.records.every((r) => Object.keys(r.fields).join(',') === 'question,answer')).toBe(true);
      expect(got.records[0]!.source).toEqual({ file: '/work/shared/datasets/gsm8k/test.jsonl', row: 1 });
      expect((got.records[0]!.fields.question as string).startsWith('Janet\u2019s ducks lay 16 eggs')).toBe(
        true,
      );
      expect((got.records[0]!.fields.answer as string).endsWith('#### 18')).toBe(true);
    },
  );

  it('gives the same records and rejections however the bytes are cut into chunks', async () => {
    const lineArb = fc.oneof(
      fc
        .dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.integer(), fc.boolean()), {
          maxKeys: 3,
        })
        .map((o) => JSON.stringify(o)),
      fc.constantFrom('', '  ', '{bad', '[1]', '{"é":"ü✓😀"}', '{"k":"\\u00e9"}\r'),
      fc.constant('\u0000invalid'), // replaced below by raw invalid bytes
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 12 }),
        fc.array(fc.nat(400), { maxLength: 8 }),
        fc.boolean(),
        async (lines, cuts, trailingNewline) => {
          const parts = lines.map((l) =>
            l === '\u0000invalid' ? Buffer.from([0x7b, 0xe9, 0x7d]) : Buffer.from(l),
          );
          const joined: Buffer[] = [];
          parts.forEach((p, i) => {
            joined.push(p);
            if (i < parts.length - 1 || trailingNewline) joined.push(Buffer.from('\n'));
          });
          const bytes = Buffer.concat(joined);
          const whole = await collect(parseJsonl(chunked(bytes, []), ctx));
          const cut = await collect(parseJsonl(chunked(bytes, cuts), ctx));
          expect(cut.records).toEqual(whole.records);
          expect(cut.rejected).toEqual(whole.rejected);
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
