import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { ConfigError, DataError, WinnowError } from '../../src/core/errors.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb, grouped } from './experience-fixtures/make.ts';

const root = tempDir('winnow-expbuf-');

const ids = (r: { experiences: { id: string }[] }) => r.experiences.map((e) => e.id);

describe('ExperienceBuffer: acceptance examples', () => {
  it('priority replay, capacity 8, decay 0.6, no reuse: 12 writes leave versions 4..11, read newest first once', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, {
      sampler: { type: 'version_priority', params: { decay: 0.6, maxUses: 1 } },
      capacity: 8,
    });
    for (let v = 0; v < 12; v++) await buf.write([exp(`e${v}`, { modelVersion: v })]);
    expect(buf.size).toBe(8);
    expect(buf.bookkeeping().map((r) => r.modelVersion)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    const first = await buf.sample(8, { step: 1 });
    expect(first.experiences.map((e) => e.modelVersion)).toEqual([11, 10, 9, 8, 7, 6, 5, 4]);
    expect(first.experiences.map((e) => e.useCount)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect((await buf.sample(8, { step: 2 })).experiences).toEqual([]);
    await buf.ack(2);
    expect(buf.bookkeeping().map((r) => [r.modelVersion, r.useCount, r.pending, r.consumed])).toEqual(
      [4, 5, 6, 7, 8, 9, 10, 11].map((v) => [v, 1, 0, true]),
    );
    // Evictions are recorded with their reason.
    const rejected = await (await RejectedStore.open(db)).read();
    expect(rejected.filter((r) => r.step === 'buffer:evict').map((r) => [r.rowId, r.reason])).toEqual(
      [0, 1, 2, 3].map((v) => [`e${v}`, `capacity 8: lowest priority (${v})`]),
    );
    await buf.close();
    // Everything acknowledged is in the table's own columns after close.
    const table = await (await lancedb.connect(db)).openTable('experiences');
    const rows = await table
      .query()
      .select(['id', 'use_count', 'consumed', 'priority', 'last_used_step'])
      .toArray();
    expect(
      rows
        .map((r) => [r.id, r.use_count, r.consumed, r.priority, r.last_used_step])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]), 'en', { numeric: true })),
    ).toEqual([4, 5, 6, 7, 8, 9, 10, 11].map((v) => [`e${v}`, 1, true, v - 0.6, 1]));
  });

  it('staleness: with maxStaleness 3 every experience sampled at step s has version ≥ s − 3; skipped ones are recorded', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, runId: 'r1' });
    const seen: [number, number][] = [];
    const skipped: string[] = [];
    for (let s = 0; s < 12; s++) {
      // Each step writes 3 rollouts of version s and 1 straggler of version s − 5.
      await buf.write([
        ...[0, 1, 2].map((k) => exp(`v${s}-${k}`, { modelVersion: s })),
        exp(`old${s}`, { modelVersion: Math.max(0, s - 5) }),
      ]);
      const r = await buf.sample(2, { step: s + 1, modelVersion: s, maxStaleness: 3 });
      for (const e of r.experiences) seen.push([s, e.modelVersion]);
      skipped.push(...r.skipped.map((k) => k.id));
      await buf.ack(s + 1);
    }
    expect(seen.length).toBe(24);
    for (const [s, v] of seen) expect(v).toBeGreaterThanOrEqual(s - 3);
    expect(skipped.length).toBeGreaterThan(0);
    const rejected = await (await RejectedStore.open(db)).read({ runId: 'r1' });
    expect(rejected.map((r) => r.rowId).sort()).toEqual([...skipped].sort());
    expect(new Set(rejected.map((r) => r.step))).toEqual(new Set(['sample:staleness']));
    expect(rejected[0]!.reason).toMatch(/^stale: model version \d+ < \d+ \(version \d+ − maxStaleness 3\)$/);
    // A skipped experience is never delivered later.
    const delivered = new Set(seen.map(([s, v]) => `${s}:${v}`));
    expect(delivered.size).toBeGreaterThan(0);
    for (const id of skipped) expect(buf.bookkeeping().find((b) => b.id === id)?.useCount ?? 0).toBe(0);
    await buf.close();
  });
});

describe('ExperienceBuffer: queue disciplines', () => {
  it('FIFO delivers each experience once, oldest first, and returns full payloads', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    // Optional payload columns are read only when a chosen row uses them: the last batch (e) needs
    // none of them (no prompt, {} info, standard action mask), the others each need some.
    const written = ['a', 'b', 'c', 'd', 'e'].map((id, i) =>
      exp(id, {
        modelVersion: i,
        messages: i === 2 ? [{ role: 'user', content: 'hi' }] : undefined,
        prompt: i === 2 || i === 4 ? undefined : `p${i}`,
        advantages: i === 1 ? [0.5, -0.25, 0] : undefined,
        // Response layout: tokens has 4 entries, promptLength 1.
        actionMask: i === 3 ? [1, 0, 1] : [1, 1, 1],
        reward: i === 4 ? Number.NaN : i,
        info: i === 4 ? {} : { k: i, nested: { ok: true } },
        truncated: i === 3,
      }),
    );
    await buf.write(written.slice(0, 3));
    await buf.write(written.slice(3));
    const r1 = await buf.sample(2, { step: 1 });
    const r2 = await buf.sample(2, { step: 1 });
    const r3 = await buf.sample(2, { step: 2 });
    expect([ids(r1), ids(r2), ids(r3)]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(r3.weights).toEqual([1]);
    expect((await buf.sample(2, { step: 3 })).experiences).toEqual([]);
    const all = [...r1.experiences, ...r2.experiences, ...r3.experiences];
    for (let i = 0; i < 5; i++) {
      const w = written[i]!;
      const strip = (e: typeof w) => {
        const { useCount: _u, priority: _p, messages, prompt, advantages, ...rest } = e;
        return {
          ...rest,
          ...(messages ? { messages } : {}),
          ...(prompt ? { prompt } : {}),
          ...(advantages ? { advantages } : {}),
        };
      };
      expect(strip(all[i]!)).toEqual(strip(w));
      expect(all[i]!.useCount).toBe(1);
    }
  });

  it('LIFO delivers newest first, each once', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'lifo' } });
    await buf.write(['a', 'b', 'c'].map((id) => exp(id)));
    expect(ids(await buf.sample(2, { step: 1 }))).toEqual(['c', 'b']);
    await buf.write(['d', 'e'].map((id) => exp(id)));
    expect(ids(await buf.sample(2, { step: 2 }))).toEqual(['e', 'd']);
    expect(ids(await buf.sample(5, { step: 3 }))).toEqual(['a']);
    expect(ids(await buf.sample(5, { step: 4 }))).toEqual([]);
  });

  it('writes are idempotent on id (re-written steps and in-call repeats are reported, not stored)', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    const w1 = await buf.write([exp('a'), exp('b'), exp('a')]);
    expect([w1.written, w1.duplicates]).toEqual([2, ['a']]);
    const w2 = await buf.write([exp('b'), exp('c')]);
    expect([w2.written, w2.duplicates]).toEqual([1, ['b']]);
    expect(w2.version).toBeGreaterThan(w1.version);
    // A new process (same table) still knows what is stored.
    const again = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    const w3 = await again.write([exp('a'), exp('b'), exp('c'), exp('d')]);
    expect([w3.written, w3.duplicates]).toEqual([1, ['a', 'b', 'c']]);
    expect(again.bookkeeping().map((r) => [r.id, r.seq])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 3],
    ]);
  });

  it('rejects malformed experiences naming the row, the id and the field', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { table: 'bad' });
    const bad = { ...exp('x'), modelVersion: -1 };
    await expect(buf.write([exp('ok'), bad])).rejects.toThrow(DataError);
    await expect(buf.write([exp('ok'), bad])).rejects.toThrow(
      "buffer 'bad' write:row 1: experience (id x): modelVersion must be a non-negative integer below 2^31, got -1",
    );
    expect(buf.size).toBe(0);
  });
});

describe('ExperienceBuffer: priority replay', () => {
  it('reuses the highest priority, decays it per use, and stops at maxUses', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'version_priority', params: { decay: 1.5, maxUses: 2 } },
    });
    await buf.write([
      exp('v0', { modelVersion: 0 }),
      exp('v1', { modelVersion: 1 }),
      exp('v3', { modelVersion: 3 }),
    ]);
    // priorities: v0 0, v1 1, v3 3; each use subtracts 1.5; two uses at most.
    const picks: string[][] = [];
    for (let s = 1; s <= 5; s++) picks.push(ids(await buf.sample(1, { step: s })));
    // v1 falls to −0.5 after its first use, below v0's 0.
    expect(picks).toEqual([['v3'], ['v3'], ['v1'], ['v0'], ['v1']]);
    await buf.ack(5);
    expect(buf.bookkeeping().map((r) => [r.id, r.useCount, r.consumed])).toEqual([
      ['v0', 1, false],
      ['v1', 2, true],
      ['v3', 2, true],
    ]);
  });

  it('cooldown in steps: used at step t, eligible again at t + cooldownSteps + 1', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'version_priority', params: { decay: 0, cooldownSteps: 2 } },
    });
    await buf.write([exp('hi', { modelVersion: 5 }), exp('lo', { modelVersion: 1 })]);
    const picks: string[][] = [];
    for (let s = 1; s <= 7; s++) picks.push(ids(await buf.sample(1, { step: s })));
    expect(picks).toEqual([['hi'], ['lo'], [], ['hi'], ['lo'], [], ['hi']]);
  });

  it('cooldown in seconds uses the caller clock', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'version_priority', params: { decay: 0, cooldownSeconds: 10 } },
    });
    await buf.write([exp('a', { modelVersion: 2 }), exp('b', { modelVersion: 1 })]);
    const at = (step: number, now: number) => buf.sample(1, { step, now }).then(ids);
    expect(await at(1, 0)).toEqual(['a']);
    expect(await at(2, 5_000)).toEqual(['b']);
    expect(await at(3, 9_999)).toEqual([]);
    expect(await at(4, 10_000)).toEqual(['a']);
  });

  it('noise is seeded per experience and use: the same seed gives the same order', async () => {
    const order = async (seed: number) => {
      const buf = await ExperienceBuffer.open(freshDb(root), {
        sampler: { type: 'version_priority', params: { decay: 0, noise: 5, maxUses: 1 } },
        seed,
      });
      await buf.write(Array.from({ length: 12 }, (_, i) => exp(`n${i}`, { modelVersion: i })));
      return ids(await buf.sample(12, { step: 1 }));
    };
    const a = await order(7);
    expect(await order(7)).toEqual(a);
    expect(await order(8)).not.toEqual(a);
    expect([...a].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`).sort());
  });
});

describe('ExperienceBuffer: random disciplines', () => {
  it('prioritized: fixed seed gives fixed ids, and weights follow (N·P)^−β / max', async () => {
    const advs = [0.1, -2, 0.5, 4, -1, 0, 3, -0.25];
    const run = async () => {
      const buf = await ExperienceBuffer.open(freshDb(root), {
        sampler: { type: 'advantage_priority', params: { alpha: 1, beta: 0.5, epsilon: 0.01, maxUses: 1 } },
        seed: 42,
      });
      await buf.write(advs.map((a, i) => exp(`p${i}`, { advantage: a })));
      return buf.sample(4, { step: 1 });
    };
    const r = await run();
    expect(ids(await run())).toEqual(ids(r));
    // Golden ids for seed 42 (any change to the sampler's random stream shows up here).
    expect(ids(r)).toEqual(['p7', 'p3', 'p1', 'p6']);
    const pr = r.experiences.map((e) => Math.abs(e.advantage) + 0.01);
    expect(r.experiences.map((e) => e.priority)).toEqual(pr);
    const total = advs.reduce((s, a) => s + Math.abs(a) + 0.01, 0);
    const w = pr.map((p) => (8 * (p / total)) ** -0.5);
    const max = Math.max(...w);
    for (const [i, x] of r.weights.entries()) expect(x).toBeCloseTo(w[i]! / max, 12);
  });

  it('uniform: never more than maxUses deliveries, never the same row twice in a batch', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'uniform', params: { maxUses: 3 } },
      seed: 1,
    });
    await buf.write(Array.from({ length: 10 }, (_, i) => exp(`u${i}`)));
    const uses: Record<string, number> = {};
    for (let s = 1; s <= 20; s++) {
      const got = ids(await buf.sample(4, { step: s }));
      expect(new Set(got).size).toBe(got.length);
      for (const id of got) uses[id] = (uses[id] ?? 0) + 1;
    }
    expect(Object.values(uses).every((n) => n === 3)).toBe(true);
    expect(Object.keys(uses).length).toBe(10);
  });
});

describe('ExperienceBuffer: keeping GRPO groups whole', () => {
  it('FIFO fills the batch with whole groups; a group that does not fit waits for the next call', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' }, keepGroups: true });
    // groups: A (4 rows), B (4), C (3), D (4)
    await buf.write([
      ...grouped('A', 4, 4),
      ...grouped('B', 4, 4),
      ...grouped('C', 3, 3),
      ...grouped('D', 4, 4),
    ]);
    const r1 = await buf.sample(7, { step: 1 });
    expect(ids(r1)).toEqual(['A0', 'A1', 'A2', 'A3', 'C0', 'C1', 'C2']);
    const r2 = await buf.sample(7, { step: 2 });
    expect(ids(r2)).toEqual(['B0', 'B1', 'B2', 'B3']);
    const r3 = await buf.sample(3, { step: 3 });
    expect(ids(r3)).toEqual([]);
    expect(ids(await buf.sample(8, { step: 4 }))).toEqual(['D0', 'D1', 'D2', 'D3']);
  });

  it('random disciplines also return only whole groups', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'advantage_priority', params: { alpha: 1, beta: 1 } },
      keepGroups: true,
      seed: 9,
    });
    const rows = Array.from({ length: 6 }, (_, g) => grouped(`G${g}-`, 4, 4, { advantage: g + 1 })).flat();
    await buf.write(rows);
    for (let s = 1; s <= 10; s++) {
      const r = await buf.sample(8, { step: s });
      expect(r.experiences.length).toBe(8);
      const byGroup = new Map<string, number>();
      for (const e of r.experiences) byGroup.set(e.groupId, (byGroup.get(e.groupId) ?? 0) + 1);
      expect([...byGroup.values()]).toEqual([4, 4]);
      // Members of one group share one importance weight.
      expect(r.weights[0]).toBe(r.weights[3]);
      expect(r.weights[4]).toBe(r.weights[7]);
    }
  });
});

describe('ExperienceBuffer: leases, acknowledgement and recovery', () => {
  it('recover(t) acknowledges leases up to t and rolls back later ones', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    await buf.write(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => exp(id)));
    expect(ids(await buf.sample(2, { step: 1 }))).toEqual(['a', 'b']);
    await buf.ack(1);
    expect(ids(await buf.sample(2, { step: 2 }))).toEqual(['c', 'd']);
    expect(ids(await buf.sample(2, { step: 3 }))).toEqual(['e', 'f']);
    // Crash: a new process opens the buffer; the trainer's checkpoint covers step 2.
    const after = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    expect(after.stats()).toMatchObject({ pendingLeases: 4, lastAcknowledgedStep: 1 });
    expect(await after.recover(2)).toEqual({ trainedThroughStep: 2, acknowledged: 2, rolledBack: 2 });
    expect(after.bookkeeping().map((r) => [r.id, r.useCount, r.pending])).toEqual([
      ['a', 1, 0],
      ['b', 1, 0],
      ['c', 1, 0],
      ['d', 1, 0],
      ['e', 0, 0],
      ['f', 0, 0],
    ]);
    expect(ids(await after.sample(5, { step: 3 }))).toEqual(['e', 'f']);
    await expect(after.recover(1)).rejects.toThrow(WinnowError);
    await expect(after.sample(1, { step: 2 })).rejects.toThrow(/not after the last acknowledged step 2/);
    // The same state is seen again after yet another reopen.
    await after.ack(3);
    const third = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    expect(third.bookkeeping().map((r) => r.useCount)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(third.stats()).toMatchObject({ pendingLeases: 0, lastAcknowledgedStep: 3, retired: 6 });
  });

  it('recover(null) rolls back every unacknowledged lease (no checkpoint yet)', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, {
      sampler: { type: 'uniform', params: { maxUses: 1 } },
      seed: 5,
    });
    await buf.write(['a', 'b', 'c'].map((id) => exp(id)));
    await buf.sample(3, { step: 1 });
    const after = await ExperienceBuffer.open(db, {
      sampler: { type: 'uniform', params: { maxUses: 1 } },
      seed: 5,
    });
    expect(await after.recover(null)).toEqual({ trainedThroughStep: -1, acknowledged: 0, rolledBack: 3 });
    expect((await after.sample(3, { step: 1 })).experiences.length).toBe(3);
  });

  it('folds acknowledged use counts into the table and trims the journal', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, {
      sampler: { type: 'uniform', params: { maxUses: 5 } },
      seed: 2,
    });
    await buf.write(['a', 'b', 'c'].map((id) => exp(id)));
    const used = new Set<string>();
    for (let s = 1; s <= 4; s++)
      for (const id of ids(await buf.sample(2, { step: s }))) if (s <= 3) used.add(id);
    await buf.ack(3);
    expect(await buf.flush()).toBe(used.size);
    const table = await (await lancedb.connect(db)).openTable('experiences');
    const cols = await table.query().select(['id', 'use_count', 'last_used_step']).toArray();
    const total = cols.reduce((s, r) => s + Number(r.use_count), 0);
    expect(total).toBe(6);
    expect(Math.max(...cols.map((r) => Number(r.last_used_step)))).toBe(3);
    // Left in the journal: the step-4 leases and the newest ack marker.
    const journal = await buf.journal.readAll();
    expect(journal.map((e) => [e.kind, e.step]).sort()).toEqual([
      ['ack', 3],
      ['use', 4],
      ['use', 4],
    ]);
  });
  it('finds rows whose predicted row ids went stale (newest rows evicted before a reopen)', async () => {
    const db = freshDb(root);
    const cfg = {
      sampler: { type: 'version_priority', params: { decay: 0, maxUses: 1 } },
      capacity: 3,
    } as const;
    const buf = await ExperienceBuffer.open(db, cfg);
    // row ids 0..4; the two newest rows have the lowest priority and are evicted
    await buf.write([5, 6, 7, 1, 0].map((v) => exp(`v${v}`, { modelVersion: v })));
    expect(buf.bookkeeping().map((r) => r.id)).toEqual(['v5', 'v6', 'v7']);
    await buf.close();
    const again = await ExperienceBuffer.open(db, cfg);
    await again.write([
      exp('v9', { modelVersion: 9, response: 'nine' }),
      exp('v8', { modelVersion: 8, response: 'eight' }),
    ]);
    const got = await again.sample(3, { step: 1 });
    expect(got.experiences.map((e) => [e.id, e.response])).toEqual([
      ['v9', 'nine'],
      ['v8', 'eight'],
      ['v7', 'response v7'],
    ]);
  });

  it('replaying the journal after a fold is idempotent (a crash between the fold and the trim)', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'uniform', params: { maxUses: 3 } }, seed: 8 } as const;
    const buf = await ExperienceBuffer.open(db, cfg);
    await buf.write(['a', 'b'].map((id) => exp(id)));
    await buf.sample(2, { step: 1 });
    await buf.sample(2, { step: 2 });
    await buf.ack(2);
    const journal = await buf.journal.readAll();
    expect(journal.filter((e) => e.kind === 'use').length).toBe(4);
    await buf.flush();
    // The trim never happened: the folded entries are still in the journal.
    await buf.journal.append(journal);
    const again = await ExperienceBuffer.open(db, cfg);
    expect(again.bookkeeping().map((r) => [r.id, r.useCount, r.pending])).toEqual([
      ['a', 2, 0],
      ['b', 2, 0],
    ]);
  });
});

describe('ExperienceBuffer: compaction and config', () => {
  it('200 small writes keep fragments and versions bounded', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'fifo' },
      compactEvery: 20,
      retainVersionsSeconds: 0,
    });
    let fragments = 0;
    let versions = 0;
    let journalVersions = 0;
    for (let i = 0; i < 200; i++) {
      await buf.write([exp(`c${i}`)]);
      if (i % 10 === 9) {
        await buf.sample(5, { step: i + 1 });
        await buf.ack(i + 1);
        fragments = Math.max(fragments, (await buf.table.stats()).fragmentStats.numFragments);
        versions = Math.max(versions, (await buf.table.listVersions()).length);
        journalVersions = Math.max(journalVersions, (await buf.journal.table.listVersions()).length);
      }
    }
    // Without compaction: 200 fragments and 200+ versions. With it, at most one compaction
    // interval's worth (20 commits) is ever outstanding.
    expect((await buf.table.stats()).numRows).toBe(200);
    expect(fragments).toBeLessThanOrEqual(21);
    expect(versions).toBeLessThanOrEqual(22);
    expect(journalVersions).toBeLessThanOrEqual(22);
  });

  it('config errors name the path', async () => {
    await expect(
      ExperienceBuffer.open(freshDb(root), { sampler: { type: 'version_priorty' } }),
    ).rejects.toThrow(
      "buffer.sampler.type: unknown sampler 'version_priorty' (did you mean 'version_priority'?)",
    );
    await expect(
      ExperienceBuffer.open(freshDb(root), { sampler: { type: 'version_priority', params: { decay: -1 } } }),
    ).rejects.toThrow(ConfigError);
    await expect(
      ExperienceBuffer.open(freshDb(root), { sampler: { type: 'version_priority', params: { decay: -1 } } }),
    ).rejects.toThrow(/^buffer\.sampler\.params\.decay: /);
    await expect(
      ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo', params: { maxUses: 2 } } }),
    ).rejects.toThrow(/^buffer\.sampler\.params\.maxUses: unknown key 'maxUses'/);
    await expect(ExperienceBuffer.open(freshDb(root), { capacity: 0 })).rejects.toThrow(
      /^buffer\.capacity: /,
    );
    await expect(ExperienceBuffer.open(freshDb(root), { remover: { type: 'oldest_first' } })).rejects.toThrow(
      "buffer.remover.type: unknown remover 'oldest_first'",
    );
  });

  it('the spellings of the read-discipline era are refused with the new name in the hint', async () => {
    const open = (c: Record<string, unknown>) =>
      ExperienceBuffer.open(freshDb(root), c as Parameters<typeof ExperienceBuffer.open>[1]);
    await expect(open({ discipline: 'priority', params: { decay: 0.5 } })).rejects.toThrow(
      'buffer.discipline: renamed (use sampler: { type: version_priority, params: {…} })',
    );
    await expect(open({ discipline: 'prioritized' })).rejects.toThrow(
      'buffer.discipline: renamed (use sampler: { type: advantage_priority })',
    );
    await expect(open({ discipline: 'fifo' })).rejects.toThrow(
      'buffer.discipline: renamed (use sampler: { type: fifo })',
    );
    await expect(open({ params: { maxUses: 2 } })).rejects.toThrow(
      'buffer.params: renamed (the parameters belong to the sampler: use sampler: { type, params: {…} })',
    );
    await expect(open({ sampler: { type: 'priority' } })).rejects.toThrow(
      "buffer.sampler.type: sampler 'priority' was renamed (renamed: use sampler: { type: version_priority })",
    );
    await expect(open({ sampler: { type: 'prioritized' } })).rejects.toThrow(ConfigError);
  });
});
