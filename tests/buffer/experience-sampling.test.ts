import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { checkReplayRatio, ReplayRatioLimiter, ReplayRatioSchema } from '../../src/buffer/rate-limiter.ts';
import { ExperienceSampler } from '../../src/buffer/strategies/experience-sampler.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-sampling-');

describe('sample strategies', () => {
  it('default: the main buffer through its discipline', async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    await buffer.write(['a', 'b', 'c'].map((id) => exp(id)));
    const sampler = await ExperienceSampler.create({}, { buffer, dbDir: db, batchSize: 2 });
    const b = await sampler.sample(2, { step: 1 });
    expect(b.experiences.map((e) => e.id)).toEqual(['a', 'b']);
    expect(b.expertMask).toEqual([false, false]);
    await sampler.ack(1);
    expect(buffer.bookkeeping().map((r) => r.useCount)).toEqual([1, 1, 0]);
  });

  it('staleness: nothing older than version − maxStaleness comes back', async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db, { sampler: { type: 'uniform' }, seed: 4 });
    await buffer.write(Array.from({ length: 20 }, (_, v) => exp(`v${v}`, { modelVersion: v })));
    const sampler = await ExperienceSampler.create(
      { type: 'staleness', params: { maxStaleness: 3 } },
      { buffer, dbDir: db, batchSize: 4 },
    );
    for (let s = 5; s < 20; s++) {
      const b = await sampler.sample(4, { step: s, modelVersion: s });
      for (const e of b.experiences) expect(e.modelVersion).toBeGreaterThanOrEqual(s - 3);
    }
  });

  it('mix: a set share of every batch from the expert table, flagged and masked', async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    const expert = await ExperienceBuffer.open(db, { table: 'sft', sampler: { type: 'uniform' } });
    await expert.write(Array.from({ length: 5 }, (_, i) => exp(`sft${i}`)));
    await buffer.write(Array.from({ length: 40 }, (_, i) => exp(`m${i}`)));
    const sampler = await ExperienceSampler.create(
      { type: 'mix', params: { expertShare: 0.25, expert: { table: 'sft' } } },
      { buffer, dbDir: db, batchSize: 8 },
    );
    for (let s = 1; s <= 4; s++) {
      const b = await sampler.sample(8, { step: s });
      expect(b.experiences.length).toBe(8);
      expect(b.expertMask).toEqual([false, false, false, false, false, false, true, true]);
      expect(b.experiences.map((e) => e.expert)).toEqual(b.expertMask);
      expect(b.experiences.slice(6).every((e) => e.id.startsWith('sft'))).toBe(true);
      expect(b.experiences.slice(0, 6).map((e) => e.id)).toEqual(
        Array.from({ length: 6 }, (_, k) => `m${(s - 1) * 6 + k}`),
      );
    }
    // ack reaches both buffers
    await sampler.ack(4);
    expect(sampler.buffers.map((b) => b.lastAcknowledgedStep)).toEqual([4, 4]);
    expect(sampler.buffers[1]!.stats().acknowledgedUses).toBe(8);
    await sampler.close();
  });

  it('config errors name their path', async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db);
    await expect(ExperienceSampler.create({ type: 'stale' }, { buffer, batchSize: 4 })).rejects.toThrow(
      "sampling.type: unknown sample strategy 'stale' (did you mean 'staleness'?)",
    );
    await expect(
      ExperienceSampler.create({ type: 'staleness', params: {} }, { buffer, batchSize: 4 }),
    ).rejects.toThrow(/^sampling\.params\.maxStaleness: /);
    await expect(
      ExperienceSampler.create(
        { type: 'mix', params: { expertShare: 0.5, expert: { table: 'experiences' } } },
        { buffer, dbDir: db, batchSize: 4 },
      ),
    ).rejects.toThrow('sampling.params.expert.table: the expert table must differ');
    await expect(
      ExperienceSampler.create(
        { type: 'mix', params: { expertShare: 0.5, expert: { table: 'e2', sampler: { type: 'nope' } } } },
        { buffer, dbDir: db, batchSize: 4 },
      ),
    ).rejects.toThrow("sampling.params.expert.sampler.type: unknown sampler 'nope'");
  });
});

describe('replay ratio limiter', () => {
  const cfg = (c: Record<string, unknown>) => ReplayRatioSchema.parse(c);

  it('keeps samples within r·(I − m) ± E and reports why it blocks', () => {
    const lim = new ReplayRatioLimiter(
      cfg({ samplesPerInsert: 2, minSizeToSample: 10, errorBuffer: 8, insertBatch: 4 }),
    );
    expect(lim.canSample(4, 9)).toBe(false);
    expect(lim.whySampleBlocked(4, 9)).toBe('replay_ratio: buffer holds 9 < minSizeToSample 10');
    expect(lim.canInsert(4, 0)).toBe(true);
    lim.onInsert(12);
    // S + n ≤ 2·(12 − 10) + 8 = 12
    expect(lim.canSample(12, 12)).toBe(true);
    expect(lim.canSample(13, 12)).toBe(false);
    lim.onSample(12);
    // insert k ok iff 2·(12 + k − 10) − 12 ≤ 8 → k ≤ 8
    expect(lim.canInsert(8, 12)).toBe(true);
    expect(lim.canInsert(9, 12)).toBe(false);
    // Below minSizeToSample inserts always go ahead (nothing could be sampled anyway).
    expect(lim.canInsert(100, 9)).toBe(true);
    expect(lim.state()).toEqual({ inserted: 12, sampled: 12 });
  });

  it('rejects settings that can deadlock, naming the field', () => {
    const ctx = { batchSize: 64, maxUses: Number.POSITIVE_INFINITY, capacity: null };
    // 2E = 2·0.1·1·100 = 20 < 1·32 + 64
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 1, minSizeToSample: 100, insertBatch: 32 }), ctx),
    ).toThrow(ConfigError);
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 1, minSizeToSample: 100, insertBatch: 32 }), ctx),
    ).toThrow(
      /^buffer\.rateLimiter\.tolerance: the error band 2 × 10 is narrower than samplesPerInsert × insertBatch \+ batchSize = 96/,
    );
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 1, errorBuffer: 40, insertBatch: 32 }), ctx),
    ).toThrow(/^buffer\.rateLimiter\.errorBuffer: .*use errorBuffer ≥ 48/);
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 1, errorBuffer: 48, insertBatch: 32 }), ctx),
    ).not.toThrow();
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 1, minSizeToSample: 500, errorBuffer: 48, insertBatch: 32 }), {
        ...ctx,
        capacity: 400,
      }),
    ).toThrow(/^buffer\.rateLimiter\.minSizeToSample: 500 is above the buffer capacity 400/);
    expect(() =>
      checkReplayRatio(cfg({ samplesPerInsert: 2, errorBuffer: 100, insertBatch: 32 }), {
        ...ctx,
        maxUses: 1,
      }),
    ).toThrow(/^buffer\.rateLimiter\.samplesPerInsert: /);
  });

  it('accepted settings never deadlock and stay in the band (property: random explorer/trainer interleavings)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 16 }),
        fc.double({ min: 0.25, max: 4, noNaN: true }),
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.boolean(), { minLength: 50, maxLength: 200 }),
        (k, n, r, m, prefs) => {
          const e = (r * k + n) / 2; // the smallest accepted band
          const c = cfg({ samplesPerInsert: r, minSizeToSample: m, errorBuffer: e, insertBatch: k });
          checkReplayRatio(c, { batchSize: n, maxUses: Number.POSITIVE_INFINITY, capacity: null });
          const lim = new ReplayRatioLimiter(c);
          for (const wantSample of prefs) {
            const { inserted } = lim.state();
            const canS = lim.canSample(n, inserted);
            const canI = lim.canInsert(k, inserted);
            expect(canS || canI).toBe(true);
            if ((wantSample && canS) || !canI) lim.onSample(n);
            else lim.onInsert(k);
            const s = lim.state();
            if (s.inserted >= m) {
              expect(s.sampled).toBeLessThanOrEqual(r * (s.inserted - m) + e + 1e-6);
              expect(s.sampled).toBeGreaterThanOrEqual(r * (s.inserted - m) - e - r * k - 1e-6);
            }
          }
        },
      ),
    );
  });

  it("the rate limiter is the table's: an empty, blocked batch instead of sampling too early", async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db, {
      sampler: { type: 'uniform' },
      seed: 1,
      rateLimiter: { samplesPerInsert: 1, minSizeToSample: 4, errorBuffer: 4, insertBatch: 4 },
    });
    const sampler = await ExperienceSampler.create({}, { buffer, dbDir: db, batchSize: 4 });
    expect(sampler.canInsert(4)).toBe(true);
    await buffer.write(['a', 'b'].map((id) => exp(id)));
    const blocked = await sampler.sample(4, { step: 1 });
    expect([blocked.experiences.length, blocked.blocked]).toEqual([
      0,
      'replay_ratio: buffer holds 2 < minSizeToSample 4',
    ]);
    // The buffer itself refuses too (it owns the limiter), leasing nothing.
    const direct = await buffer.sample(4, { step: 1 });
    expect([direct.experiences.length, direct.blocked]).toEqual([
      0,
      'replay_ratio: buffer holds 2 < minSizeToSample 4',
    ]);
    expect(buffer.stats().pendingLeases).toBe(0);
    await buffer.write(['c', 'd', 'e', 'f'].map((id) => exp(id)));
    const ok = await sampler.sample(4, { step: 1 });
    expect(ok.experiences.length).toBe(4);
    expect(ok.blocked).toBeUndefined();
    expect(sampler.state()).toEqual({ replayRatio: { inserted: 6, sampled: 4 } });
    // Checkpoint state round-trips through a fresh buffer.
    await buffer.close();
    const again = await ExperienceBuffer.open(db, {
      sampler: { type: 'uniform' },
      seed: 1,
      rateLimiter: { samplesPerInsert: 1, minSizeToSample: 4, errorBuffer: 4, insertBatch: 4 },
    });
    const resumed = await ExperienceSampler.create({}, { buffer: again, dbDir: db, batchSize: 4 });
    resumed.load({ replayRatio: { inserted: 6, sampled: 4 } });
    expect(again.rateLimiter?.state()).toEqual({ inserted: 6, sampled: 4 });
    expect(resumed.canSample(4)).toBe(false);
  });

  it('sampling.replayRatio is refused with the new place in the hint', async () => {
    const db = freshDb(root);
    const buffer = await ExperienceBuffer.open(db);
    await expect(
      ExperienceSampler.create(
        { replayRatio: { samplesPerInsert: 1, insertBatch: 4 } } as Parameters<
          typeof ExperienceSampler.create
        >[0],
        { buffer, batchSize: 4 },
      ),
    ).rejects.toThrow(
      /^sampling\.replayRatio: moved: the rate limiter belongs to the buffer \(use buffer: \{ rateLimiter:/,
    );
    const narrow = await ExperienceBuffer.open(db, {
      table: 'narrow',
      rateLimiter: { samplesPerInsert: 1, minSizeToSample: 100, insertBatch: 32 },
    });
    await expect(ExperienceSampler.create({}, { buffer: narrow, batchSize: 64 })).rejects.toThrow(
      /^buffer\.rateLimiter\.tolerance: the error band/,
    );
  });
});
