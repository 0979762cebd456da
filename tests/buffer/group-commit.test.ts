import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { samplerRegistry } from '../../src/buffer/samplers/registry.ts';
import { defineSampler, ONCE } from '../../src/buffer/samplers/sampler.ts';
import { DataError } from '../../src/core/errors.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-group-commit-');

describe('ExperienceBuffer.write: group commit', () => {
  it('calls made before the buffer gets to them land together in one commit, in call order, each with its own result', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const v0 = await buf.version();
    const calls = Array.from({ length: 6 }, (_, c) =>
      buf.write([exp(`c${c}a`), exp(`c${c}b`), ...(c === 3 ? [exp('c1a')] : [])]),
    );
    const results = await Promise.all(calls);
    // All six were called before the buffer took the first: one commit holds them all.
    expect(results.map((r) => r.version - v0)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(results.map((r) => r.written)).toEqual([2, 2, 2, 2, 2, 2]);
    // An id an earlier call of the group wrote is a duplicate of the later call.
    expect(results.map((r) => r.duplicates)).toEqual([[], [], [], ['c1a'], [], []]);
    expect(await buf.version()).toBe(v0 + 1);
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual(
      [0, 1, 2, 3, 4, 5].flatMap((c) => [`c${c}a`, `c${c}b`]).map((id, seq) => [id, seq]),
    );
    expect((await buf.read()).map((e) => e.id)).toEqual(buf.bookkeeping().map((r) => r.id));
    await buf.close();
  });

  it('calls made while a commit is in flight share the next commit', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const v0 = await buf.version();
    const first = buf.write([exp('f0')]);
    await new Promise((r) => setTimeout(r, 0)); // the buffer has started the first commit
    const later = [1, 2, 3].map((c) => buf.write([exp(`f${c}`)]));
    const results = await Promise.all([first, ...later]);
    expect(results.map((r) => r.version - v0)).toEqual([1, 2, 2, 2]);
    expect(buf.bookkeeping().map((r) => r.id)).toEqual(['f0', 'f1', 'f2', 'f3']);
    await buf.close();
  });

  it('a call with a bad row fails alone: the other calls of its group land', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const first = buf.write([exp('a')]);
    const bad = buf.write([exp('b'), { ...exp('c'), runIndex: -1 }]);
    bad.catch(() => undefined); // it rejects at once, before `first` lands: handled below
    const good = buf.write([exp('d')]);
    expect((await first).written).toBe(1);
    await expect(bad).rejects.toThrow(DataError);
    await expect(bad).rejects.toThrow(/runIndex must be a non-negative integer below 2\^31, got -1/);
    expect((await good).written).toBe(1);
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual([
      ['a', 0],
      ['d', 1],
    ]);
    await buf.close();
  });

  it('a write called after a sample is not pulled in front of it', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const w1 = buf.write([exp('x1'), exp('x2')]);
    const s = buf.sample(10, { step: 1 });
    const w2 = buf.write([exp('x3')]);
    await w1;
    expect((await s).experiences.map((e) => e.id)).toEqual(['x1', 'x2']);
    expect((await w2).written).toBe(1);
    expect((await buf.sample(10, { step: 2 })).experiences.map((e) => e.id)).toEqual(['x3']);
    await buf.close();
  });

  it('a sampler whose priority throws fails the calls of that group (they do not hang); later writes land', async () => {
    const samplers = samplerRegistry();
    samplers.register(
      defineSampler({
        name: 'picky_priority',
        description: 'Throws for a negative reward (a faulty user sampler).',
        params: z.strictObject({}),
        create: () => ({
          name: 'picky_priority',
          limits: ONCE,
          remover: 'oldest',
          priority: (row) => {
            if (row.reward < 0) throw new Error('picky: negative reward');
            return row.reward;
          },
          select: (view, n) => {
            const slots: number[] = [];
            for (let s = view.start; s < view.end && slots.length < n; s++)
              if (view.eligible(s)) slots.push(s);
            return { slots, weights: slots.map(() => 1) };
          },
        }),
      }),
    );
    const buf = await ExperienceBuffer.open(
      freshDb(root),
      { sampler: { type: 'picky_priority' } },
      {},
      { samplers },
    );
    await buf.write([exp('ok0')]);
    const bad = buf.write([exp('bad', { reward: -1 }), exp('ok1')]);
    await expect(bad).rejects.toThrow('picky: negative reward');
    expect((await buf.write([exp('ok2')])).written).toBe(1);
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual([
      ['ok0', 0],
      ['ok2', 1],
    ]);
    await buf.close();
  });

  it('every call resolves only after its rows are committed: a reopened buffer holds all of them', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    await Promise.all(Array.from({ length: 20 }, (_, c) => buf.write([exp(`r${c}`)])));
    const other = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    expect(other.size).toBe(20);
    expect(other.bookkeeping().map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, c) => `r${c}`));
    await other.close();
    await buf.close();
  });
});

describe('ExperienceBuffer.write: rows encoded when each call is made', () => {
  it('land with the seq, priority and payload flags of their commit; a call with a duplicate is re-encoded without it', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'version_priority', params: { decay: 0.5 } },
    });
    const results = await Promise.all([
      buf.write([exp('p0'), exp('p1', { modelVersion: 3, info: { k: 1 } })]),
      buf.write([exp('p0'), exp('p2', { modelVersion: 1, actionMask: [0, 1, 1] })]),
      buf.write([exp('p3', { modelVersion: 2 })]),
    ]);
    expect(results.map((r) => [r.written, r.duplicates])).toEqual([
      [2, []],
      [1, ['p0']],
      [1, []],
    ]);
    const t = await buf.table.query().select(['id', 'seq', 'priority', 'payload_flags', 'info']).toArrow();
    const stored = t
      .toArray()
      .map((r) => [String(r.id), Number(r.seq), Number(r.priority), Number(r.payload_flags)])
      .sort((a, b) => Number(a[1]) - Number(b[1]));
    const book = buf.bookkeeping();
    expect(stored.map((r) => r.slice(0, 2))).toEqual([
      ['p0', 0],
      ['p1', 1],
      ['p2', 2],
      ['p3', 3],
    ]);
    // The stored priority is the sampler's at zero uses, as the index has it (higher model versions first).
    expect(stored.map((r) => r[2])).toEqual(book.map((r) => r.priority));
    expect(new Set(book.map((r) => r.priority)).size).toBe(4);
    // prompt = 1 for every row, info = 8, a non-standard action mask = 16.
    expect(stored.map((r) => r[3])).toEqual([1, 1 | 8, 1 | 16, 1]);
    const read = await buf.read();
    expect(read.map((e) => [e.id, e.info, e.actionMask])).toEqual([
      ['p0', {}, [1, 1, 1]],
      ['p1', { k: 1 }, [1, 1, 1]],
      ['p2', {}, [0, 1, 1]],
      ['p3', {}, [1, 1, 1]],
    ]);
    await buf.close();
  });

  it('a call with duplicates lands its other rows exactly as written, whatever their cells (runs of its own batch)', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write([exp('d1'), exp('d3')]);
    const odd = [
      exp('d0', { createdAt: 1_700_000_000_123, info: { k: [1, 'x'] } }),
      exp('d1'),
      exp('d2', {
        messages: [{ role: 'user', content: 'é 😀' }],
        advantages: [0.5, -0.25, 1],
        actionMask: [0, 1, 1],
      }),
      exp('d3'),
      exp('d4', { truncated: true, expert: true, reward: Number.NaN }),
      exp('d5'),
    ];
    const r = await buf.write(odd);
    expect([r.written, r.duplicates]).toEqual([4, ['d1', 'd3']]);
    const read = (await buf.read()).filter((e) => ['d0', 'd2', 'd4', 'd5'].includes(e.id));
    const pick = (e: (typeof odd)[number]) => [
      e.id,
      e.createdAt,
      e.info,
      e.messages ?? null,
      e.advantages ?? null,
      e.actionMask,
      e.truncated,
      e.expert,
      e.reward,
    ];
    expect(read.map(pick)).toEqual([odd[0]!, odd[2]!, odd[4]!, odd[5]!].map(pick));
    // Sampled too (rows the row store did not copy are taken from LanceDB): the same payloads.
    const sampled = (await buf.sample(6, { step: 1 })).experiences.filter(
      (e) => !['d1', 'd3'].includes(e.id),
    );
    expect(sampled.map((e) => [...pick(e), e.tokens, e.logprobs, e.prompt])).toEqual(
      [odd[0]!, odd[2]!, odd[4]!, odd[5]!].map((e) => [...pick(e), e.tokens, e.logprobs, e.prompt]),
    );
    expect(buf.bookkeeping().map((b) => [b.id, b.seq])).toEqual([
      ['d1', 0],
      ['d3', 1],
      ['d0', 2],
      ['d2', 3],
      ['d4', 4],
      ['d5', 5],
    ]);
    await buf.close();
  });
});
