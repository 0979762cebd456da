import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { compileMapping, type FieldMappingInput } from '../../src/io/mapping.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { exactDedupOp } from '../../src/operators/task/exact-dedup.ts';
import { ExactDedupKeyer } from '../../src/operators/task/exact-dedup-prepared.ts';
import { flatColumnsOf } from '../../src/pipeline-workers/flat-json-line.ts';
import { packChunk } from '../../src/pipeline-workers/jsonl-chunk-pack.ts';
import { type ChunkJob, chunkRows } from '../../src/pipeline-workers/jsonl-chunk-rows.ts';
import { FastChunkReader } from '../../src/pipeline-workers/jsonl-fast-rows.ts';

const CHAIN = [
  { op: 'strip_html' },
  { op: 'normalize_unicode', params: { form: 'NFKC' } },
  { op: 'normalize_whitespace' },
  { op: 'length_filter', params: { minWords: 3, maxChars: 70 } },
  { op: 'special_char_ratio_filter', params: { maxRatio: 0.3 } },
  { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
];
const MAPPING: FieldMappingInput = { id: 'id', prompt: 'q', answer: 'a', taskset: 't' };

const graphOf = async (steps: unknown[]) =>
  new OperatorGraph<Task>(await buildGraph<Task>(steps, { registry: taskOperatorRegistry(), baseDir: '.' }), {
    seed: 3,
  });
const keyer = () => new ExactDedupKeyer(exactDedupOp.params.parse({}));

// Texts of every kind the steps and the reader care about: plain prose, markup, entities, double
// spaces, escapes (ASCII and not), non-ASCII, control characters, short and long, blank.
const TEXT = fc.oneof(
  // Plain prose most of all: the rows the fast path takes.
  {
    weight: 4,
    arbitrary: fc
      .array(fc.constantFrom('apple', 'basket', 'farmer', '12', 'eggs', 'market', 'sells'), {
        minLength: 3,
        maxLength: 9,
      })
      .map((w) => w.join(' ')),
  },
  fc.constantFrom(
    'apple basket carries dozen eggs',
    'the farmer sells 12 eggs at the market',
    'Farmer  sells eggs',
    ' leading space here and there',
    'a <b>bold</b> move by the farmer',
    'fish &amp; chips for the farmer',
    'two\\nlines of text in this one',
    'tab\\there and more words',
    'quote \\"inside\\" of the text here',
    'escaped \\u0041 letter in words',
    'caf\\u00e9 with accents in it',
    'café and crème brûlée are here',
    '\\u0007 bell and more words',
    '?!? ### $$$ %%% &&& ***',
    'too short',
    '   ',
    '',
    'x'.repeat(80),
  ),
  fc.stringMatching(/^[a-z ]{0,40}$/),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s).slice(1, -1)),
);

/** One line: a flat row in any key order with extras, or something the reader must refuse or skip. */
const LINE = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constantFrom('r1', 'r2', '', 'r\\u0033'), fc.stringMatching(/^r[0-9]{1,4}$/)),
        TEXT,
        fc.oneof(
          fc.constantFrom('5', '12', 'yes', 'a\\nb', '\\b\\f\\r\\t\\/\\\\'),
          fc.stringMatching(/^[0-9]{1,3}$/),
          // Any text as JSON writes it: every escape, ASCII or not.
          fc.string({ maxLength: 6, unit: 'binary' }).map((t) => JSON.stringify(t).slice(1, -1)),
        ),
        fc.constantFrom('id-q-a', 'id-q-a', 'q-a-id', 'a-id-q', 'id-q-a-y', 'id-q', 'q-a', 'id-q-a-x'),
        fc.constantFrom('', ' ', '\r', ' \r', '  '),
        fc.boolean(),
      )
      .map(([id, q, a, order, tail, spaced]) => {
        const s = spaced ? ' ' : '';
        const parts: Record<string, string> = {
          id: `"id"${s}:${s}"${id}"`,
          q: `"q":"${q}"`,
          a: `"a":"${a}"`,
          x: `"x":${s}[1,2]`,
          y: `"y":-1.5e3,"z":true,"w":null,"v":0`,
        };
        return `{${s}${order
          .split('-')
          .map((k) => parts[k])
          .join(`,${s}`)}${s}}${tail}`;
      }),
  },
  fc.constantFrom(
    '',
    '   ',
    '{"id":"d1","q":"apple basket carries dozen eggs","q":"again the basket"}',
    '{"id":7,"q":"apple basket carries dozen eggs","a":"1"}',
    '{"id":"n1","q":12,"a":"1"}',
    '{"id":"n2","q":"apple basket carries dozen eggs","a":42}',
    '{"id":"n3","q":"apple basket carries dozen eggs","a":null}',
    '{"id":"n4","q":"apple basket carries dozen eggs","a":{"k":1}}',
    '{"id":"n5","q":"apple basket carries dozen eggs","a":"1",}',
    '{"id":"n6","q":"apple basket carries dozen eggs","a":"1"',
    '{"id":"n7","q":"apple basket\tcarries dozen eggs","a":"1"}',
    '{"id":"n8","q":"apple basket carries dozen eggs","a":"1","n":01}',
    '{"id":"n9","q":"apple basket carries dozen eggs","a":"1","n":-}',
    '{"id":"n10","q":"apple basket \\x carries","a":"1"}',
    '{"i\\u0064":"n11","q":"apple basket carries dozen eggs","a":"1"}',
    ' {"id":"n12","q":"apple basket carries dozen eggs","a":"1"}',
    '\ufeff{"id":"n13","q":"apple basket carries dozen eggs","a":"1"}',
    '[1,2]',
    '"text"',
    '{"broken',
    '{}',
    '{"id":"n14","a":"1"}',
    '{"q":"apple basket carries dozen eggs","a":"1"}',
    `{"id":"n15","q":"${'long words here '.repeat(30)}","a":"1"}`,
  ),
);

async function both(
  lines: string[],
  finalNewline: boolean,
  job: Partial<ChunkJob> = {},
  chain: unknown[] = CHAIN,
  mappingInput: FieldMappingInput = MAPPING,
) {
  const text = lines.join('\n') + (finalNewline ? '\n' : '');
  const make = (): ChunkJob => ({
    bytes: new TextEncoder().encode(text),
    file: 'f.jsonl',
    maxLineBytes: 200,
    maxDepth: 8,
    ...job,
  });
  const mapping = compileMapping(mappingInput);
  const usualGraph = await graphOf(chain);
  const usual = await chunkRows(make(), mapping, usualGraph);
  const fastGraph = await graphOf(chain);
  const reader = FastChunkReader.of(mapping, fastGraph, keyer());
  expect(reader).not.toBeNull();
  const fast = await reader!.read(make());
  const strip = ({ mapMs: _ms, ...p }: ReturnType<typeof packChunk>) => p;
  const totals = (g: OperatorGraph<Task>) => g.metrics().map(({ ms: _ms, ...m }) => m);
  return {
    usual: {
      chunk: strip(packChunk(usual, 't', 'f.jsonl')),
      keys: keyer().hashAll(usual.tasks),
      totals: totals(usualGraph),
    },
    fast: {
      chunk: strip(fast.chunk),
      keys: { keys: fast.exactKeys, checks: fast.exactChecks },
      totals: totals(fastGraph),
    },
  };
}

describe('a JSONL chunk read from its bytes (the fast path)', () => {
  it('packs the same rows, drops, rejections, ordinals, profiles and dedup keys as the usual path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(LINE, { minLength: 5, maxLength: 60 }),
        fc.boolean(),
        async (lines, finalNewline) => {
          const { usual, fast } = await both(lines, finalNewline);
          expect(fast.chunk).toEqual(usual.chunk);
          expect(fast.keys).toEqual(usual.keys);
          expect(fast.totals).toEqual(usual.totals);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it('agrees with the mapping on blank prompts, optional answers and allowEmpty under a chain that keeps them', async () => {
    const mappings: FieldMappingInput[] = [
      MAPPING,
      { ...MAPPING, answer: 'a?' },
      { ...MAPPING, prompt: { column: 'q', allowEmpty: true } },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(LINE, { minLength: 5, maxLength: 60 }),
        fc.constantFrom(...mappings),
        async (lines, mapping) => {
          const { usual, fast } = await both(lines, true, {}, [{ op: 'normalize_unicode' }], mapping);
          expect(fast.chunk).toEqual(usual.chunk);
          expect(fast.keys).toEqual(usual.keys);
          expect(fast.totals).toEqual(usual.totals);
        },
      ),
      { numRuns: 150, seed: 8 },
    );
  });

  it('one reader over many chunks (its buffers kept from chunk to chunk) packs each as the usual path does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(LINE, { minLength: 1, maxLength: 50 }), { minLength: 2, maxLength: 5 }),
        async (chunks) => {
          const mapping = compileMapping(MAPPING);
          const usualGraph = await graphOf(CHAIN);
          const fastGraph = await graphOf(CHAIN);
          const reader = FastChunkReader.of(mapping, fastGraph, keyer())!;
          for (const lines of chunks) {
            const job = () => ({
              bytes: new TextEncoder().encode(`${lines.join('\n')}\n`),
              file: 'f.jsonl',
              maxLineBytes: 200,
              maxDepth: 8,
            });
            const { mapMs: _a, ...usual } = packChunk(
              await chunkRows(job(), mapping, usualGraph),
              't',
              'f.jsonl',
            );
            const { mapMs: _b, ...fast } = (await reader.read(job())).chunk;
            expect(fast).toEqual(usual);
          }
          const totals = (g: OperatorGraph<Task>) => g.metrics().map(({ ms: _ms, ...m }) => m);
          expect(totals(fastGraph)).toEqual(totals(usualGraph));
        },
      ),
      { numRuns: 60, seed: 9 },
    );
  });

  it('reads plain rows without the usual path, and gives each its line, ordinal and texts', async () => {
    const lines = [
      '{"id":"s1","q":"apple basket carries dozen eggs","a":"5"}',
      '',
      '{"broken',
      '{"id":"s2","q":"a <b>bold</b> farmer sells eggs","a":"6"}',
      '{"a":"7","q":"the farmer sells 12 eggs","id":"s3","n":1}',
    ];
    const { usual, fast } = await both(lines, true);
    expect(fast.chunk).toEqual(usual.chunk);
    expect(fast.chunk.text).toBe(
      's1apple basket carries dozen eggs5s2a bold farmer sells eggs6s3the farmer sells 12 eggs7',
    );
    expect([...fast.chunk.rows]).toEqual([1, 4, 5]);
    expect([...fast.chunk.taskOrdinal]).toEqual([0, 1, 2]);
    expect(fast.chunk.records).toBe(3);
    expect(fast.chunk.readRejected.map((r) => [r.row, r.reason.slice(0, 12)])).toEqual([[3, 'invalid JSON']]);
    expect([...fast.chunk.readBefore]).toEqual([1]);
    expect(fast.totals.map((m) => [m.step, m.rowsIn, m.rowsOut, m.extra])).toEqual([
      ['strip_html', 3, 3, { changed: 1 }],
      ['normalize_unicode', 3, 3, { changed: 0 }],
      ['normalize_whitespace', 3, 3, { changed: 0 }],
      ['length_filter', 3, 3, {}],
      ['special_char_ratio_filter', 3, 3, {}],
      ['alnum_ratio_filter', 3, 3, {}],
    ]);
  });

  it('counts a chunk of plain rows only in every step (no usual path at all)', async () => {
    const lines = [
      '{"id":"s1","q":"apple basket carries dozen eggs","a":"5"}',
      '{"id":"s2","q":"the farmer sells eggs"}',
    ];
    const { usual, fast } = await both(lines, false);
    expect(fast.chunk).toEqual(usual.chunk);
    expect(fast.totals).toEqual(usual.totals);
    const { fast: all } = await both([lines[0]!, lines[0]!.replace('s1', 's9')], true);
    expect(all.chunk.odd).toEqual([]);
    expect(all.totals.every((m) => m.rowsIn === 2 && m.rowsOut === 2)).toBe(true);
  });

  it('reads every line the usual way when maxDepth refuses a flat object or a line is over maxLineBytes', async () => {
    const lines = [
      '{"id":"s1","q":"apple basket carries dozen eggs","a":"5"}',
      '{"id":"s2","q":"the farmer sells eggs","a":"1"}',
    ];
    for (const job of [{ maxDepth: 0 }, { maxLineBytes: 40 }]) {
      const { usual, fast } = await both(lines, true, job);
      expect(fast.chunk).toEqual(usual.chunk);
      expect(fast.totals).toEqual(usual.totals);
    }
  });
});

describe('which runs the fast path serves', () => {
  it('takes plain column mappings only', () => {
    const cols = flatColumnsOf(
      compileMapping({ id: 'id', prompt: { column: 'q', allowEmpty: true }, answer: 'a?', taskset: 't' })
        .mapping,
    );
    expect(cols && [Buffer.from(cols.prompt).toString(), cols.allowEmpty, cols.answerOptional]).toEqual([
      'q',
      true,
      true,
    ]);
    for (const m of [
      { prompt: 'q', taskset: 't' },
      { id: 'id', prompt: { template: 'Q: {q}' }, taskset: 't' },
      { id: 'id', prompt: 'q.text', taskset: 't' },
      { id: 'id', prompt: 'q', answer: { template: '{a}' }, taskset: 't' },
      { id: 'id', prompt: 'q', meta: '*', taskset: 't' },
      { id: 'id', prompt: 'q', meta: ['src'], taskset: 't' },
      { id: 'id', prompt: 'q', features: { level: 'lvl' }, taskset: 't' },
      { id: 'id', prompt: 'q', messages: 'chat', taskset: 't' },
    ] as FieldMappingInput[])
      expect(flatColumnsOf(compileMapping(m).mapping)).toBeNull();
  });

  it('needs every step to judge rows by their profile, and exact_dedup keys the profile carries', async () => {
    const mapping = compileMapping(MAPPING);
    expect(FastChunkReader.of(mapping, await graphOf(CHAIN), keyer())).not.toBeNull();
    expect(FastChunkReader.of(mapping, await graphOf(CHAIN), null)).not.toBeNull();
    for (const steps of [
      [...CHAIN, { op: 'remove_urls_emails' }],
      [{ op: 'strip_html', params: { field: 'all' } }],
      [{ op: 'length_filter', params: { field: 'answer', minWords: 1 } }],
    ])
      expect(FastChunkReader.of(mapping, await graphOf(steps), null)).toBeNull();
    const answerKeys = new ExactDedupKeyer(exactDedupOp.params.parse({ field: 'answer' }));
    expect(FastChunkReader.of(mapping, await graphOf(CHAIN), answerKeys)).toBeNull();
  });
});
