import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { SMALL_TABLE_FOLD_EVERY } from '../../src/buffer/storage/table-upkeep.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-smallfold-');

describe('automatic upkeep of a small table', () => {
  it('folds use counts at every SMALL_TABLE_FOLD_EVERY-th compaction only; that fold writes every acknowledged use', async () => {
    const compactEvery = 2;
    const buf = await ExperienceBuffer.open(freshDb(root), {
      sampler: { type: 'fifo' },
      compactEvery,
      retainVersionsSeconds: 0,
    });
    const folded = async () => {
      const rows = await buf.table.query().select(['use_count']).toArray();
      return rows.filter((r) => Number(r.use_count) > 0).length;
    };
    // One write (one commit), one sample and ack of its rows per step.
    const step = async (s: number) => {
      await buf.write([exp(`s${s}-a`), exp(`s${s}-b`)]);
      expect((await buf.sample(2, { step: s })).experiences).toHaveLength(2);
      await buf.ack(s);
    };
    const beforeFold = compactEvery * SMALL_TABLE_FOLD_EVERY - 1;
    for (let s = 1; s <= beforeFold; s++) await step(s);
    // Compactions ran (the table is compacted) but folded nothing: the journal holds the uses.
    expect(await folded()).toBe(0);
    const stats = await buf.stats();
    expect([stats.rows, stats.unfolded, stats.acknowledgedUses]).toEqual([
      2 * beforeFold,
      2 * beforeFold,
      2 * beforeFold,
    ]);
    expect((await buf.bookkeeping()).filter((b) => b.useCount === 1)).toHaveLength(2 * beforeFold);
    // The commit that makes the SMALL_TABLE_FOLD_EVERY-th compaction folds every acknowledged use.
    await step(beforeFold + 1);
    expect(await folded()).toBe(2 * beforeFold);
    expect((await buf.stats()).unfolded).toBe(2);
    await buf.close();
  });
});
