import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../../src/buffer/experience-config.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-props-');

type Op =
  | { op: 'write'; n: number }
  | { op: 'sample'; n: number }
  | { op: 'ack' }
  | { op: 'compact' }
  | { op: 'crash' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('write' as const), n: fc.integer({ min: 1, max: 6 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('sample' as const), n: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 2, arbitrary: fc.constant({ op: 'ack' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'crash' as const }) },
);

const cases: Array<[string, ExperienceBufferConfigInput, number]> = [
  ['fifo', { sampler: { type: 'fifo' } }, 1],
  ['lifo', { sampler: { type: 'lifo' } }, 1],
  [
    'priority',
    { sampler: { type: 'version_priority', params: { decay: 0.5, maxUses: 2, cooldownSteps: 1 } } },
    2,
  ],
  [
    'prioritized',
    { sampler: { type: 'advantage_priority', params: { alpha: 0.7, beta: 0.5, maxUses: 3 } } },
    3,
  ],
  ['uniform', { sampler: { type: 'uniform', params: { maxUses: 2 } } }, 2],
  ['fifo + groups', { sampler: { type: 'fifo' }, keepGroups: true }, 1],
  [
    'priority + groups',
    { sampler: { type: 'version_priority', params: { maxUses: 2 } }, keepGroups: true },
    2,
  ],
];

describe('buffer invariants under random write / sample / ack / compact / crash sequences', () => {
  for (const [name, config, maxUses] of cases) {
    it(`${name}: only written ids, never more than ${maxUses} use(s), bookkeeping equals the model`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArb, { minLength: 1, maxLength: 14 }),
          fc.nat(1000),
          async (ops, seed) => {
            const db = freshDb(root, 'prop');
            const cfg = { ...config, seed };
            let buf = await ExperienceBuffer.open(db, cfg);
            const written: string[] = [];
            // deliveries per id as (step) lists; acknowledged through `acked`
            const deliveries = new Map<string, number[]>();
            let step = 0;
            let acked = -1;
            let next = 0;
            for (const o of ops) {
              if (o.op === 'write') {
                const rows = Array.from({ length: o.n }, (_, k) => {
                  const i = next + k;
                  return exp(`x${i}`, {
                    modelVersion: i % 5,
                    advantage: (i % 7) - 3,
                    groupId: `grp${Math.floor(i / 2)}`,
                  });
                });
                next += o.n;
                await buf.write(rows);
                written.push(...rows.map((r) => r.id));
              } else if (o.op === 'sample') {
                step++;
                const r = await buf.sample(o.n, { step });
                const got = r.experiences.map((e) => e.id);
                expect(new Set(got).size).toBe(got.length);
                expect(got.length).toBeLessThanOrEqual(o.n);
                for (const id of got) {
                  expect(written).toContain(id);
                  const list = deliveries.get(id) ?? [];
                  list.push(step);
                  deliveries.set(id, list);
                  expect(list.length).toBeLessThanOrEqual(maxUses);
                }
              } else if (o.op === 'ack') {
                await buf.ack(step);
                acked = step;
              } else if (o.op === 'compact') {
                await buf.compact();
              } else {
                // kill: drop the process state, reopen, resume from the last acknowledged step
                buf = await ExperienceBuffer.open(db, cfg);
                await buf.recover(acked);
                for (const [id, list] of deliveries)
                  deliveries.set(
                    id,
                    list.filter((s) => s <= acked),
                  );
                step = Math.max(step, acked);
              }
              const book = new Map(buf.bookkeeping().map((b) => [b.id, b]));
              expect([...book.keys()].sort()).toEqual([...written].sort());
              for (const id of written) {
                const b = book.get(id)!;
                const list = deliveries.get(id) ?? [];
                expect(b.useCount + b.pending).toBe(list.length);
                expect(b.useCount).toBe(list.filter((s) => s <= acked).length);
              }
            }
            await buf.close();
          },
        ),
        { numRuns: 12 },
      );
    });
  }
});
