import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { samplerRegistry } from '../../src/buffer/samplers/registry.ts';
import {
  type CandidateView,
  defineSampler,
  ONCE,
  type SamplerDefinition,
} from '../../src/buffer/samplers/sampler.ts';
import { ExperienceSampler } from '../../src/buffer/strategies/experience-sampler.ts';
import { Registry } from '../../src/core/registry.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * Issue #10 acceptance: a new sampler is one definition plus one registry line, written here in a
 * test file without touching src/.
 */
const root = tempDir('winnow-custom-sampler-');

/** Highest reward first (ties: newest first), each experience once, rows below `minReward` never. */
const rewardFirst = defineSampler({
  name: 'reward_first',
  description: 'Highest reward first (ties: newest first), each experience delivered once.',
  params: z.strictObject({ minReward: z.number().default(Number.NEGATIVE_INFINITY) }),
  create: (p) => ({
    name: 'reward_first',
    limits: ONCE,
    remover: 'lowest_priority',
    priority: (row) => row.reward,
    select: (view, n) => {
      const pool: number[] = [];
      for (let s = view.start; s < view.end; s++)
        if (view.eligible(s) && view.facts(s).reward >= p.minReward) pool.push(s);
      pool.sort((a, b) => view.priority[b]! - view.priority[a]! || view.seq[b]! - view.seq[a]!);
      const slots = pool.slice(0, n);
      return { slots, weights: slots.map(() => 1) };
    },
  }),
});
/** The run's own registry: the built-ins plus this file's sampler (never a process-wide one). */
const withRewardFirst = samplerRegistry();
withRewardFirst.register(rewardFirst);

/** Round-robin over tasksets (in order of first appearance), oldest row of each in turn; reusable `maxUses` times. */
const tasksetRoundRobin = defineSampler({
  name: 'taskset_round_robin',
  description: 'One row per taskset in turn, oldest first within a taskset.',
  params: z.strictObject({ maxUses: z.number().int().positive().default(1) }),
  create: (p) => ({
    name: 'taskset_round_robin',
    limits: { maxUses: p.maxUses, cooldownSteps: 0, cooldownSeconds: 0 },
    remover: 'oldest',
    priority: () => 0,
    select: (view: CandidateView, n) => {
      const queues = new Map<string, number[]>();
      for (let s = view.start; s < view.end; s++) {
        if (!view.eligible(s)) continue;
        const t = view.facts(s).taskset;
        queues.set(t, [...(queues.get(t) ?? []), s]);
      }
      const slots: number[] = [];
      const lists = [...queues.values()];
      for (let round = 0; slots.length < n && lists.some((l) => l.length > round); round++)
        for (const l of lists) if (slots.length < n && round < l.length) slots.push(l[round]!);
      return { slots, weights: slots.map(() => 1) };
    },
  }),
});

describe('a sampler defined in a test file', () => {
  it('registered in a registry of its own: samples by its own rule, exact ids', async () => {
    const buf = await ExperienceBuffer.open(
      freshDb(root),
      {
        sampler: { type: 'reward_first', params: { minReward: 0.2 } },
      },
      {},
      { samplers: withRewardFirst },
    );
    const rewards = [0.5, 0.9, 0.1, 0.9, 0.3, 0.7];
    await buf.write(rewards.map((reward, i) => exp(`e${i}`, { reward })));
    const first = await buf.sample(3, { step: 1 });
    expect(first.experiences.map((e) => [e.id, e.reward])).toEqual([
      ['e3', 0.9],
      ['e1', 0.9],
      ['e5', 0.7],
    ]);
    expect(first.experiences.map((e) => e.priority)).toEqual([0.9, 0.9, 0.7]);
    await buf.ack(1);
    // e2 (0.1) is below minReward: never delivered; everything else once.
    expect((await buf.sample(10, { step: 2 })).experiences.map((e) => e.id)).toEqual(['e0', 'e4']);
    await buf.ack(2);
    expect((await buf.sample(10, { step: 3 })).experiences).toEqual([]);
    expect(buf.bookkeeping().map((r) => [r.id, r.useCount])).toEqual([
      ['e0', 1],
      ['e1', 1],
      ['e2', 0],
      ['e3', 1],
      ['e4', 1],
      ['e5', 1],
    ]);
    // Its params are checked by its own schema, under the config path.
    await expect(
      ExperienceBuffer.open(
        freshDb(root),
        {
          sampler: { type: 'reward_first', params: { minReward: 'high' } },
        },
        {},
        { samplers: withRewardFirst },
      ),
    ).rejects.toThrow(/^buffer\.sampler\.params\.minReward: /);
    await buf.close();
  });

  it('passed in a registry of its own through open(…, { samplers }), with its default remover', async () => {
    const samplers = new Registry<SamplerDefinition>('sampler');
    samplers.register(tasksetRoundRobin);
    const db = freshDb(root);
    const config = { sampler: { type: 'taskset_round_robin', params: { maxUses: 2 } }, capacity: 7 } as const;
    // The built-in registry does not know it.
    await expect(ExperienceBuffer.open(db, config)).rejects.toThrow(
      "buffer.sampler.type: unknown sampler 'taskset_round_robin'",
    );
    const buf = await ExperienceBuffer.open(db, config, {}, { samplers });
    const rows = [
      ['a0', 'math'],
      ['a1', 'math'],
      ['a2', 'math'],
      ['b0', 'code'],
      ['c0', 'chat'],
      ['c1', 'chat'],
    ] as const;
    await buf.write(rows.map(([id, taskset]) => exp(id, { taskset })));
    const s1 = await buf.sample(5, { step: 1 });
    expect(s1.experiences.map((e) => e.id)).toEqual(['a0', 'b0', 'c0', 'a1', 'c1']);
    await buf.ack(1);
    const s2 = await buf.sample(4, { step: 2 });
    expect(s2.experiences.map((e) => e.id)).toEqual(['a0', 'b0', 'c0', 'a1']);
    await buf.ack(2);
    // Over capacity 7: the sampler's remover ('oldest') takes the used-up rows first, oldest first.
    const w = await buf.write([exp('d0', { taskset: 'math' }), exp('d1', { taskset: 'code' })]);
    expect(w.evicted.map((e) => [e.id, e.reason])).toEqual([
      ['a0', 'capacity 7: already used up or skipped'],
    ]);
    // Eligible now: a2 and d0 (math), c1 (chat), d1 (code), queued by first appearance.
    expect((await buf.sample(10, { step: 3 })).experiences.map((e) => e.id)).toEqual([
      'a2',
      'c1',
      'd1',
      'd0',
    ]);
    await buf.close();
  });

  it('a remover named in the config replaces the sampler’s default', async () => {
    const config = {
      sampler: { type: 'version_priority', params: { decay: 0 } },
      remover: { type: 'oldest' },
      capacity: 3,
    } as const;
    const buf = await ExperienceBuffer.open(freshDb(root), config);
    await buf.write([
      exp('v5', { modelVersion: 5 }),
      exp('v1', { modelVersion: 1 }),
      exp('v9', { modelVersion: 9 }),
    ]);
    const w = await buf.write([exp('v7', { modelVersion: 7 })]);
    // version_priority alone would remove the lowest priority (v1); the oldest remover removes v5.
    expect(w.evicted.map((e) => [e.id, e.reason])).toEqual([['v5', 'capacity 3: oldest']]);
    await buf.close();
    const byDefault = await ExperienceBuffer.open(freshDb(root), { ...config, remover: undefined });
    await byDefault.write([
      exp('v5', { modelVersion: 5 }),
      exp('v1', { modelVersion: 1 }),
      exp('v9', { modelVersion: 9 }),
    ]);
    expect(
      (await byDefault.write([exp('v7', { modelVersion: 7 })])).evicted.map((e) => [e.id, e.reason]),
    ).toEqual([['v1', 'capacity 3: lowest priority (1)']]);
    await byDefault.close();
  });

  it('buffers a strategy opens beside the main one (mix: the expert table) use the same registry', async () => {
    const samplers = new Registry<SamplerDefinition>('sampler');
    for (const d of samplerRegistry().all()) samplers.register(d);
    samplers.register(tasksetRoundRobin);
    const db = freshDb(root);
    const expert = await ExperienceBuffer.open(db, { table: 'sft' });
    await expert.write([
      exp('s0', { taskset: 'math' }),
      exp('s1', { taskset: 'math' }),
      exp('s2', { taskset: 'code' }),
    ]);
    await expert.close();
    const buffer = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } }, {}, { samplers });
    await buffer.write(['m0', 'm1', 'm2'].map((id) => exp(id)));
    const sampler = await ExperienceSampler.create(
      {
        type: 'mix',
        params: { expertShare: 0.5, expert: { table: 'sft', sampler: { type: 'taskset_round_robin' } } },
      },
      { buffer, dbDir: db, batchSize: 4 },
    );
    const b = await sampler.sample(4, { step: 1 });
    expect(b.experiences.map((e) => e.id)).toEqual(['m0', 'm1', 's0', 's2']);
    await sampler.close();
    await buffer.close();
  });
});
