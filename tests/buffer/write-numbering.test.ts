import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { samplerRegistry } from '../../src/buffer/samplers/registry.ts';
import { defineSampler, ONCE, type Sampler } from '../../src/buffer/samplers/sampler.ts';
import { type CheckedWrite, numberGroup } from '../../src/buffer/storage/checked-write.ts';
import { writeFacts } from '../../src/buffer/storage/write-facts.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-write-numbering-');

/** A fifo-like sampler that counts how often the buffer asks it for a priority. */
let asked = 0;
const samplers = samplerRegistry();
samplers.register(
  defineSampler({
    name: 'counting_fixed',
    description: 'Oldest first; priority 7 for every row, declared fixed.',
    params: z.strictObject({ fixed: z.boolean().default(true) }),
    create: (p) => ({
      name: 'counting_fixed',
      limits: ONCE,
      remover: 'oldest',
      priority: () => {
        asked++;
        return 7;
      },
      ...(p.fixed ? { fixedPriority: 7 } : {}),
      select: (view, n) => {
        const slots: number[] = [];
        for (let s = view.start; s < view.end && slots.length < n; s++) if (view.eligible(s)) slots.push(s);
        return { slots, weights: slots.map(() => 1) };
      },
    }),
  }),
);

/** Calls as numberGroup sees them (rows only; nothing encoded, nothing settled). */
function calls(...ids: string[][]): CheckedWrite[] {
  return ids.map((c) => ({
    facts: writeFacts(c.map((id) => exp(id, { advantage: id === 'y' ? 0.5 : 0 }))),
    encoded: null as never,
    done: () => undefined,
  }));
}

const byAdvantage = { priority: (row: { advantage: number }) => row.advantage * 10 } as unknown as Sampler;

describe('write numbering (checked-write.ts numberGroup)', () => {
  it('gives new rows consecutive seqs in call order and sets aside ids held already or written earlier in the group', () => {
    const held = new Set(['b']);
    const out = numberGroup(calls(['a', 'b', 'c'], ['c', 'd'], ['e']), {
      firstSeq: 40,
      has: (id) => held.has(id),
      sampler: { fixedPriority: 0 } as Sampler,
    });
    expect(out.map((r) => [r.fresh, r.count, r.firstSeq, r.priorities, r.duplicates])).toEqual([
      [[0, 2], 2, 40, 0, ['b']],
      [[1], 1, 42, 0, ['c']],
      [null, 1, 43, 0, []],
    ]);
  });

  it("asks a sampler without a fixed priority once per new row, at zero uses, with the row's seq", () => {
    const seen: [string, number, number][] = [];
    const sampler = {
      priority: (row: { id: string; seq: number; advantage: number }, uses: number) => {
        seen.push([row.id, row.seq, uses]);
        return byAdvantage.priority(row as never, uses);
      },
    } as unknown as Sampler;
    const rows = calls(['x', 'y', 'x']);
    const [r] = numberGroup(rows, { firstSeq: 3, has: () => false, sampler });
    expect(seen).toEqual([
      ['x', 3, 0],
      ['y', 4, 0],
    ]);
    expect([...(r!.priorities as Float64Array)]).toEqual([0, 5]);
    expect(r!.fresh).toEqual([0, 1]);
  });
});

describe('ExperienceBuffer.write: priorities and the row store', () => {
  it('a sampler with a fixed priority is never asked on write; the column and the index hold that priority', async () => {
    const buf = await ExperienceBuffer.open(
      freshDb(root),
      { sampler: { type: 'counting_fixed' } },
      {},
      { samplers },
    );
    asked = 0;
    await buf.write([exp('p0'), exp('p1'), exp('p2')]);
    expect(asked).toBe(0);
    expect(buf.bookkeeping().map((r) => [r.id, r.seq, r.priority])).toEqual([
      ['p0', 0, 7],
      ['p1', 1, 7],
      ['p2', 2, 7],
    ]);
    const col = (await buf.table.query().select(['seq', 'priority']).toArray()).map((r) => [
      Number(r.seq),
      r.priority,
    ]);
    expect(col.sort((a, b) => a[0]! - b[0]!)).toEqual([
      [0, 7],
      [1, 7],
      [2, 7],
    ]);
    await buf.close();
  });

  it('the same sampler without the declaration is asked once per new row (not again to index it)', async () => {
    const buf = await ExperienceBuffer.open(
      freshDb(root),
      {
        sampler: { type: 'counting_fixed', params: { fixed: false } },
      },
      {},
      { samplers },
    );
    asked = 0;
    await buf.write([exp('q0'), exp('q1'), exp('q0')]);
    expect(asked).toBe(2);
    expect(buf.bookkeeping().map((r) => r.priority)).toEqual([7, 7]);
    await buf.close();
  });

  it('advantage_priority: the stored priority column equals the index priority, |A| + ε', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'advantage_priority', params: { epsilon: 0.25 } },
    });
    await buf.write([exp('r0', { advantage: -2 }), exp('r1', { advantage: 0.5 })]);
    expect(buf.bookkeeping().map((r) => r.priority)).toEqual([2.25, 0.75]);
    const col = (await buf.table.query().select(['seq', 'priority']).toArray())
      .map((r) => [Number(r.seq), r.priority])
      .sort((a, b) => a[0]! - b[0]!);
    expect(col).toEqual([
      [0, 2.25],
      [1, 0.75],
    ]);
    await buf.close();
  });

  it('a row store that fails to take a copy does not fail the write: the rows are committed, indexed and sampled from LanceDB', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const rows = (buf.storage as unknown as { rows: { append: () => void } | null }).rows;
    expect(rows).not.toBeNull();
    rows!.append = () => {
      throw new Error('disk full');
    };
    const res = await buf.write([exp('s0'), exp('s1')]);
    expect([res.written, res.duplicates]).toEqual([2, []]);
    const got = await buf.sample(2, { step: 1 });
    expect(got.experiences.map((e) => [e.id, e.response, e.tokens])).toEqual([
      ['s0', 'response s0', exp('s0').tokens],
      ['s1', 'response s1', exp('s1').tokens],
    ]);
    await buf.close();
  });
});
