import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/core/errors.ts';
import { Registry } from '../../src/core/registry.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { defineOperator, filterRows, type OperatorDefinition } from '../../src/operators/operator.ts';

interface Row {
  id: string;
  n: number;
  tag?: string;
}

const minFilter = defineOperator<Row, z.ZodType<{ min: number }>>({
  name: 'min_filter',
  kind: 'filter',
  description: 'keep n >= min',
  params: z.object({ min: z.number().default(0) }),
  create: (p) => ({
    name: 'min_filter',
    kind: 'filter',
    process: (batch) => filterRows(batch, (r) => (r.n >= p.min ? null : `n ${r.n} < ${p.min}`)),
  }),
});
const tagger = defineOperator<Row, z.ZodType<{ tag: string }>>({
  name: 'tag',
  kind: 'map',
  description: 'set tag',
  params: z.object({ tag: z.string() }),
  create: (p) => ({
    name: 'tag',
    kind: 'map',
    process: (batch) => ({ rows: batch.map((r) => ({ ...r, tag: p.tag })), dropped: [] }),
  }),
});
const doubler = defineOperator<Row, z.ZodType<Record<string, never>>>({
  name: 'double',
  kind: 'augment',
  description: 'emit a copy',
  params: z.object({}),
  create: () => ({
    name: 'double',
    kind: 'augment',
    process: (batch) => ({
      rows: batch.flatMap((r) => [r, { ...r, id: `${r.id}'` }]),
      dropped: [],
      metrics: { emitted: batch.length },
    }),
  }),
});
/** Holds every row back until the end of the stream (exercises flush). */
const holder = defineOperator<Row, z.ZodType<Record<string, never>>>({
  name: 'hold',
  kind: 'dedup',
  description: 'hold rows',
  params: z.object({}),
  create: () => {
    const held: Row[] = [];
    return {
      name: 'hold',
      kind: 'dedup',
      process: (batch) => {
        held.push(...batch);
        return { rows: [], dropped: [] };
      },
      flush: () => ({ rows: held.splice(0), dropped: [] }),
    };
  },
});

function registry() {
  const reg = new Registry<OperatorDefinition<Row, unknown>>('operator');
  for (const d of [minFilter, tagger, doubler, holder]) reg.register(d as OperatorDefinition<Row, unknown>);
  return reg;
}

const rows = (ns: number[]): Row[] => ns.map((n, i) => ({ id: `r${i}`, n }));

describe('operator graph', () => {
  it('runs a chain, records each drop with its step and reason, and counts per step', async () => {
    const nodes = await buildGraph<Row>(
      [
        { op: 'min_filter', params: { min: 3 } },
        { op: 'tag', params: { tag: 'x' } },
      ],
      { registry: registry(), baseDir: '.' },
    );
    const g = new OperatorGraph(nodes, { seed: 1 });
    const out = await g.process(rows([1, 5, 2, 7]));
    expect(out.rows).toEqual([
      { id: 'r1', n: 5, tag: 'x' },
      { id: 'r3', n: 7, tag: 'x' },
    ]);
    expect(out.rejected.map((r) => [r.step, r.row.id, r.reason])).toEqual([
      ['min_filter', 'r0', 'n 1 < 3'],
      ['min_filter', 'r2', 'n 2 < 3'],
    ]);
    const m = g.metrics();
    expect(m.map((s) => [s.step, s.rowsIn, s.rowsOut, s.dropped])).toEqual([
      ['min_filter', 4, 2, 2],
      ['tag', 2, 2, 0],
    ]);
    expect(m[0]!.reasons).toEqual({ 'n # < #': 2 });
  });

  it('routes rows through branches by predicate and unions the routes in route order', async () => {
    const spec = [
      {
        branch: {
          name: 'split',
          routes: [
            {
              name: 'big',
              when: { field: 'n', gte: 10 },
              operators: [{ op: 'tag', params: { tag: 'big' } }],
            },
            { name: 'odd', when: { any: [{ field: 'n', in: [1, 3, 5] }] }, operators: [{ op: 'double' }] },
          ],
          otherwise: [{ op: 'min_filter', params: { min: 4 } }],
        },
      },
      { op: 'tag', name: 'final', params: { tag: 'done' } },
    ];
    const g = new OperatorGraph(await buildGraph<Row>(spec, { registry: registry(), baseDir: '.' }), {
      seed: 1,
    });
    const out = await g.process(rows([12, 1, 2, 6, 3]));
    expect(out.rows.map((r) => `${r.id}:${r.n}:${r.tag}`)).toEqual([
      'r0:12:done',
      'r1:1:done',
      "r1':1:done",
      'r4:3:done',
      "r4':3:done",
      'r3:6:done',
    ]);
    expect(out.rejected.map((r) => [r.step, r.row.id])).toEqual([['split/otherwise/min_filter', 'r2']]);
    expect(g.metrics().map((s) => s.step)).toEqual([
      'split',
      'split/big/tag',
      'split/odd/double',
      'split/otherwise/min_filter',
      'final',
    ]);
    expect(g.metrics().find((s) => s.step === 'split/odd/double')!.extra).toEqual({ emitted: 2 });
  });

  it('flushes held rows through the rest of the graph at the end of the stream', async () => {
    const g = new OperatorGraph(
      await buildGraph<Row>([{ op: 'hold' }, { op: 'min_filter', params: { min: 2 } }], {
        registry: registry(),
        baseDir: '.',
      }),
      { seed: 0 },
    );
    expect((await g.process(rows([1, 2]))).rows).toEqual([]);
    expect((await g.process(rows([3]))).rows).toEqual([]);
    const tail = await g.flush();
    expect(tail.rows.map((r) => r.n)).toEqual([2, 3]);
    expect(tail.rejected.map((r) => r.row.n)).toEqual([1]);
  });

  it('names the config path, the expected type and the closest operator names on bad configs', async () => {
    await expect(
      buildGraph<Row>([{ op: 'min_filtr' }], { registry: registry(), baseDir: '.', file: 'p.yaml' }),
    ).rejects.toThrow("p.yaml: operators[0].op: unknown operator 'min_filtr' (did you mean 'min_filter'?)");
    await expect(
      buildGraph<Row>(
        [
          { op: 'tag', params: { tag: 'a' } },
          { op: 'min_filter', params: { min: 'three' } },
        ],
        { registry: registry(), baseDir: '.' },
      ),
    ).rejects.toThrow('operators[1].params.min: expected a number, got a string (write a number here)');
    await expect(buildGraph<Row>([{ opp: 'tag' }], { registry: registry(), baseDir: '.' })).rejects.toThrow(
      'operators[0]: a step needs one of the keys op, module or branch; found opp',
    );
    await expect(
      buildGraph<Row>({ op: 'tag' }, { registry: registry(), baseDir: '.' }),
    ).rejects.toBeInstanceOf(ConfigError);
  });

  it('conserves rows: for any chain, rows in = rows out + rows rejected (no augment)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -5, max: 20 }), { maxLength: 60 }),
        fc.array(fc.integer({ min: -5, max: 20 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 7 }),
        async (ns, mins, batchSize) => {
          const spec = mins.map((min) => ({ op: 'min_filter', params: { min } }));
          const g = new OperatorGraph(await buildGraph<Row>(spec, { registry: registry(), baseDir: '.' }), {
            seed: 0,
          });
          let out = 0;
          let rej = 0;
          const all = rows(ns);
          for (let i = 0; i < all.length; i += batchSize) {
            const r = await g.process(all.slice(i, i + batchSize));
            out += r.rows.length;
            rej += r.rejected.length;
          }
          expect(out + rej).toBe(ns.length);
          expect(out).toBe(ns.filter((n) => n >= Math.max(...mins)).length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
