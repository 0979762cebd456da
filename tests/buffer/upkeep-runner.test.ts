import * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { StoredExperience } from '../../src/buffer/storage/experience-table.ts';
import { UpkeepRunner, upkeepMode } from '../../src/buffer/storage/upkeep-runner.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-upkeep-runner-');

/** Fold rows for the ids `r<i>`: use count i + 1, last used at step 7. */
function foldRows(ids: number[]): StoredExperience[] {
  return ids.map((i) => ({
    exp: { id: `r${i}` } as Experience,
    seq: i,
    useCount: i + 1,
    priority: 0.5,
    lastUsedStep: 7,
    lastUsedAt: 1_000 + i,
    consumed: false,
  }));
}

async function storedUses(db: string): Promise<Map<string, [number, number]>> {
  const t = await (await lancedb.connect(db)).openTable('experiences');
  const rows = await t.query().select(['id', 'use_count', 'last_used_step']).toArray();
  return new Map(rows.map((r) => [String(r.id), [Number(r.use_count), Number(r.last_used_step)]]));
}

const runners: UpkeepRunner[] = [];
afterEach(() => {
  for (const r of runners.splice(0)) r.stop();
});

describe('background upkeep in a process of its own', () => {
  it('a background fold is written by the upkeep process and seen at once by the buffer', async () => {
    expect(upkeepMode()).toBe('process');
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, seed: 1 });
    await buf.write(Array.from({ length: 30 }, (_, i) => exp(`r${i}`)));
    await buf.storage.fold(foldRows([2, 5, 11]), { background: true });
    // The buffer's own handle reads the child's commit on its next read.
    const back = await buf.table
      .query()
      .where("id IN ('r2','r5','r11','r3')")
      .select(['id', 'use_count'])
      .toArray();
    expect(new Map(back.map((r) => [String(r.id), Number(r.use_count)]))).toEqual(
      new Map([
        ['r2', 3],
        ['r3', 0],
        ['r5', 6],
        ['r11', 12],
      ]),
    );
    await buf.storage.optimize(new Date(), { background: true });
    await buf.close();
    const uses = await storedUses(db);
    expect(uses.size).toBe(30);
    expect([...uses].filter(([, [u]]) => u > 0)).toEqual([
      ['r2', [3, 7]],
      ['r5', [6, 7]],
      ['r11', [12, 7]],
    ]);
  }, 30_000);

  it('a failed job rejects with one line naming the table, and the process keeps serving', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, seed: 1 });
    await buf.write(Array.from({ length: 5 }, (_, i) => exp(`r${i}`)));
    const missing = new UpkeepRunner(db, 'no_such_table');
    runners.push(missing);
    const err = await missing.optimize(new Date()).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^upkeep of table 'no_such_table': /);
    expect((err as Error).message).not.toContain('\n    at ');
    // The same process serves the next job once the table exists.
    const conn = await lancedb.connect(db);
    await conn.createTable('no_such_table', [{ id: 'a', seq: 0 }]);
    await missing.optimize(new Date());
    expect(await (await conn.openTable('no_such_table')).countRows()).toBe(1);
    await buf.close();
  }, 30_000);

  it('stopping the process fails the job in flight; the next job starts a new process', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, seed: 1 });
    await buf.write(Array.from({ length: 10 }, (_, i) => exp(`r${i}`)));
    const runner = new UpkeepRunner(db, 'experiences');
    runners.push(runner);
    const stopped = runner.optimize(new Date());
    runner.stop();
    await expect(stopped).rejects.toThrow(/^upkeep of table 'experiences': the upkeep process exited/);
    await buf.close();
    // No fold landed from the stopped job; a new process serves the next one.
    const fold = foldRows([4]);
    const enc = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, seed: 1 });
    await enc.storage.fold(fold, { background: true });
    await enc.close();
    expect((await storedUses(db)).get('r4')).toEqual([5, 7]);
  }, 30_000);
});
