import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { MAX_GROUP_ROWS, WRITE_GROUP_ROWS } from '../../src/buffer/storage/write-groups.ts';
import { DataError } from '../../src/core/errors.ts';
import { appendsDirectly } from '../../src/store/lance-append.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-write-behind-');
const rowsOf = (c: number, n: number) => Array.from({ length: n }, (_, k) => exp(`c${c}-${k}`));

describe('ExperienceBuffer.writeBehind (opt-in)', () => {
  it('a single caller’s calls resolve once queued, coalesce into fewer commits, and land exactly as write would store them', async () => {
    const behind = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const plain = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const v0 = await behind.version();
    const queued = [];
    for (let c = 0; c < 12; c++) queued.push(await behind.writeBehind(rowsOf(c, 5)));
    await behind.durable();
    for (let c = 0; c < 12; c++) await plain.write(rowsOf(c, 5));
    expect(queued.map((q) => q.queued)).toEqual(Array(12).fill(5));
    const results = await Promise.all(queued.map((q) => q.committed));
    expect(results.map((r) => r.written)).toEqual(Array(12).fill(5));
    // The first call commits alone; the rest were made while it was in flight: far fewer commits than calls.
    const commits = (await behind.version()) - v0;
    expect(commits).toBeGreaterThanOrEqual(2);
    expect(commits).toBeLessThan(12);
    expect(results.at(-1)!.version).toBe(v0 + commits);
    expect(behind.bookkeeping().map((r) => [r.id, r.seq])).toEqual(
      plain.bookkeeping().map((r) => [r.id, r.seq]),
    );
    expect((await behind.read()).map((e) => e.id)).toEqual((await plain.read()).map((e) => e.id));
    await behind.close();
    await plain.close();
  });

  it('a sample made after write-behind calls sees all of them (it runs after their commits)', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    for (let c = 0; c < 4; c++) await buf.writeBehind(rowsOf(c, 3));
    const got = await buf.sample(12, { step: 1 });
    expect(got.experiences.map((e) => e.id)).toEqual(
      [0, 1, 2, 3].flatMap((c) => rowsOf(c, 3).map((e) => e.id)),
    );
    await buf.close();
  });

  it('duplicates are known at commit: `committed` reports them; a bad row rejects its call at once and queues nothing', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write([exp('old')]);
    const q = await buf.writeBehind([exp('new'), exp('old')]);
    expect(q.queued).toBe(2);
    await expect(buf.writeBehind([exp('ok'), { ...exp('bad'), tokens: [1.5] }])).rejects.toThrow(DataError);
    const r = await q.committed;
    expect([r.written, r.duplicates]).toEqual([1, ['old']]);
    await buf.durable();
    expect(buf.bookkeeping().map((b) => b.id)).toEqual(['old', 'new']);
    await buf.close();
  });

  it('backpressure: with maxQueuedRows 0 a call resolves only after the commit ahead of its own has landed', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const landed: number[] = [];
    for (let c = 0; c < 5; c++) {
      const q = await buf.writeBehind(rowsOf(c, 2), { maxQueuedRows: 0 });
      // Every call before the previous one has landed by now.
      expect(landed.length).toBeGreaterThanOrEqual(c - 1);
      q.committed.then(() => landed.push(c));
    }
    await buf.durable();
    expect(landed).toEqual([0, 1, 2, 3, 4]);
    await buf.close();
  });

  it('a failed commit rejects its calls and fails every later call with one line naming the table; the table keeps the calls before it', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { table: 'wb_fail', sampler: { type: 'fifo' } });
    await buf.write(rowsOf(0, 2));
    const storage = buf.storage as unknown as { appendEncoded: (...a: unknown[]) => Promise<number> };
    const real = storage.appendEncoded.bind(storage);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    storage.appendEncoded = async () => {
      await sleep(40);
      throw new Error('disk full');
    };
    const q1 = await buf.writeBehind(rowsOf(1, 2));
    await sleep(5); // q1's commit is in flight: q2 forms the next group
    const q2 = await buf.writeBehind(rowsOf(2, 2));
    await expect(q1.committed).rejects.toThrow('disk full');
    storage.appendEncoded = real;
    // q2 was queued behind the failure: it must not land after it.
    await expect(q2.committed).rejects.toThrow(/write-behind commit failed/);
    for (const call of [
      () => buf.durable(),
      () => buf.sample(1, { step: 1 }),
      () => buf.write(rowsOf(3, 1)),
      () => buf.writeBehind(rowsOf(4, 1)),
      () => buf.ack(1),
    ])
      await expect(call()).rejects.toThrow(
        "buffer 'wb_fail': a write-behind commit failed, so this buffer accepts no more calls (disk full); reopen it: the table holds every write made before the failed one, in call order",
      );
    expect(buf.bookkeeping().map((b) => b.id)).toEqual(['c0-0', 'c0-1']);
    expect(await buf.table.countRows()).toBe(2);
  });

  it('write-behind groups stop taking calls at MAX_GROUP_ROWS rows, so the next group is encoded while one commits', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const v0 = await buf.version();
    const per = MAX_GROUP_ROWS / 4;
    const queued = await Promise.all(Array.from({ length: 9 }, (_, c) => buf.writeBehind(rowsOf(c, per))));
    const results = await Promise.all(queued.map((q) => q.committed));
    // Made before the buffer took the first: groups of 4 calls (MAX_GROUP_ROWS rows), then 1, in order.
    expect(results.map((r) => r.version - v0)).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3]);
    expect(buf.size).toBe(9 * per);
    await buf.close();
  });

  it('write groups stop taking calls at WRITE_GROUP_ROWS rows; after the first, two commit side by side', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    const v0 = await buf.version();
    const per = WRITE_GROUP_ROWS / 4;
    const results = await Promise.all(Array.from({ length: 9 }, (_, c) => buf.write(rowsOf(c, per))));
    const v = results.map((r) => r.version - v0);
    // Groups of 4 calls, 4 calls, 1 call: three commits. The first after open commits alone
    // (version 1); the other two side by side, landing in either order, each call reporting a
    // version that holds its rows.
    expect(await buf.version()).toBe(v0 + 3);
    expect(v.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(new Set(v.slice(4, 8)).size).toBe(1);
    expect([v[4], v[8]].every((x) => x === 2 || x === 3)).toBe(true);
    expect(buf.bookkeeping().map((r) => r.seq)).toEqual(Array.from({ length: 9 * per }, (_, k) => k));
    await buf.close();
  });

  it('the installed LanceDB takes the direct append path (lance-append.ts), which refuses a batch of another schema', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    expect(appendsDirectly(buf.table)).toBe(true);
    const { appendArrow } = await import('../../src/store/lance-append.ts');
    const arrow = await import('apache-arrow');
    const other = arrow.tableFromArrays({ x: Int32Array.from([1, 2]) });
    await expect(appendArrow(buf.table, other)).rejects.toThrow();
    expect(await buf.table.countRows()).toBe(0);
    await buf.close();
  });
});
