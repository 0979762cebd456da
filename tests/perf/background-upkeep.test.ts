import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { BACKGROUND_UPKEEP_ROWS } from '../../src/buffer/storage/table-upkeep.ts';
import { exp, freshDb } from '../buffer/experience-fixtures/make.ts';
import { tempDir } from '../helpers/tmp.ts';

const root = tempDir('winnow-upkeep-');

const ROWS = BACKGROUND_UPKEEP_ROWS + 2_000;
const rows = Array.from({ length: ROWS }, (_, i) =>
  exp(`r${i}`, { modelVersion: i % 7, advantage: (i % 13) - 6 }),
);

/** 12 steps of sample(256) + ack; returns the ids of every batch and what the upkeep did. */
async function run(foldRows: number, mode: 'process' | 'inline' = 'process') {
  const db = freshDb(root);
  // Where background jobs run is fixed when the buffer opens (upkeep-runner.ts).
  const before = process.env.WINNOW_UPKEEP;
  process.env.WINNOW_UPKEEP = mode;
  const buf = await ExperienceBuffer.open(db, {
    sampler: { type: 'advantage_priority', params: { maxUses: 3 } },
    seed: 5,
    foldRows,
    compactEvery: 1_000,
  });
  if (before === undefined) delete process.env.WINNOW_UPKEEP;
  else process.env.WINNOW_UPKEEP = before;
  for (let i = 0; i < ROWS; i += 11_000) await buf.write(rows.slice(i, i + 11_000));
  const batches: string[][] = [];
  let sawBusy = 0;
  for (let step = 1; step <= 12; step++) {
    const s = await buf.sample(256, { step });
    batches.push(s.experiences.map((e) => e.id));
    await buf.ack(step);
    if (buf.upkeepState.busy) sawBusy++;
  }
  const started = buf.upkeepState.completed + (buf.upkeepState.busy ? 1 : 0);
  const bookkeeping = buf.bookkeeping();
  await buf.close();
  const table = await (await lancedb.connect(db)).openTable('experiences');
  const stored = await table.query().select(['id', 'use_count']).toArray();
  return { batches, sawBusy, started, bookkeeping, stored };
}

describe('background fold', () => {
  it.each(['process', 'inline'] as const)(
    'folds in the background on a large table (upkeep %s), and sampling is the same as with no fold at all',
    async (mode) => {
      const bg = await run(512, mode);
      const none = await run(10_000_000, mode);
      // A fold was due after every ack (512 rows wait); the jobs ran beside the samples. (How many
      // ran depends on timing: a job in the upkeep process first waits for that process to start.)
      expect(bg.started).toBeGreaterThanOrEqual(1);
      expect(bg.sawBusy).toBeGreaterThanOrEqual(1);
      expect(none.started).toBe(0);
      // Same batches, same bookkeeping, whatever the fold timing.
      expect(bg.batches).toEqual(none.batches);
      expect(bg.batches.flat().length).toBe(12 * 256);
      expect(bg.bookkeeping).toEqual(none.bookkeeping);
      // After close every acknowledged use is in the table's own column.
      const uses = new Map(bg.bookkeeping.map((r) => [r.id, r.useCount]));
      expect(bg.stored.length).toBe(ROWS);
      expect(bg.stored.filter((r) => r.use_count !== uses.get(r.id)).length).toBe(0);
      expect(bg.stored.reduce((a, r) => a + r.use_count, 0)).toBe(12 * 256);
    },
    60_000,
  );
});
