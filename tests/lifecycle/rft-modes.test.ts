import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-modes-');

async function run(name: string, lifecycle: Record<string, unknown>) {
  const config = smallRftConfig(name, {
    heldout: undefined,
    lifecycle: { mode: 'sync', steps: 4, checkpointEvery: 4, ...lifecycle },
  });
  return runRft(config, {
    baseDir: REPO_ROOT,
    dbDir: join(dir, `db-${name}`),
    runDir: join(dir, `run-${name}`),
  });
}

describe('lifecycle modes', () => {
  it('sync, interval 1: the explorer always rolls out with the newest weights', async () => {
    const r = await run('sync1', {});
    expect(r.history.map((h) => [h.step, h.explorerVersion, h.trainSteps])).toEqual([
      [1, 0, 1],
      [2, 1, 2],
      [3, 2, 3],
      [4, 3, 4],
    ]);
  });

  it('sync, interval 2: weights reach the explorer every second step', async () => {
    const r = await run('sync2', { syncInterval: 2 });
    expect(r.history.map((h) => [h.step, h.explorerVersion, h.trainSteps])).toEqual([
      [1, 0, 1],
      [2, 0, 2],
      [3, 2, 3],
      [4, 2, 4],
    ]);
  });

  it('sync, offset 1 (one step off-policy): each train step sees only earlier steps’ experiences', async () => {
    const r = await run('offset1', { syncOffset: 1 });
    // Step 1 has nothing to train on yet; from then on training lags exploration by one step.
    expect(r.history.map((h) => [h.step, h.explorerVersion, h.trainSteps])).toEqual([
      [1, 0, 0],
      [2, 0, 1],
      [3, 1, 2],
      [4, 2, 3],
    ]);
    expect(Number.isNaN(r.history[0]!.trainLoss)).toBe(true);
  });

  it('async: explorer and trainer run concurrently, never more than maxExploreAhead apart', async () => {
    const r = await run('async', { mode: 'async', maxExploreAhead: 1, steps: 6 });
    expect(r.steps).toBe(6);
    for (const h of r.history) expect(h.step - 1 - h.explorerVersion).toBeLessThanOrEqual(1 + 1);
    expect(r.history[r.history.length - 1]!.trainSteps).toBe(6);
  });

  it('explore: rollouts only, no trainer, weights never change', async () => {
    const r = await run('explore', { mode: 'explore' });
    expect(r.history.map((h) => [h.explorerVersion, h.trainSteps])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(r.history.every((h) => h.rollouts === 16)).toBe(true);
  });

  it('train: learns offline from the buffer an earlier run filled', async () => {
    const name = 'offline';
    const fill = smallRftConfig(name, {
      heldout: undefined,
      buffer: { table: 'offline_exp', sampler: { type: 'uniform', params: { maxUses: 4 } } },
      lifecycle: { mode: 'explore', steps: 3, checkpointEvery: 3 },
    });
    await runRft(fill, { baseDir: REPO_ROOT, dbDir: join(dir, 'db-offline'), runDir: join(dir, 'run-fill') });
    const train = smallRftConfig(name, {
      heldout: undefined,
      buffer: { table: 'offline_exp', sampler: { type: 'uniform', params: { maxUses: 4 } } },
      lifecycle: { mode: 'train', steps: 3, checkpointEvery: 3, trainBatch: 8 },
    });
    const r = await runRft(train, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db-offline'),
      runDir: join(dir, 'run-train'),
    });
    expect(r.history.map((h) => [h.rollouts, h.trainSteps])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
    ]);
    expect(r.counters.trained).toBe(24);
  });
});

describe('starting over', () => {
  it('refuses a buffer.table naming a table that exists (here: not even an experience table) and leaves it alone', async () => {
    const db = join(dir, 'db-guard');
    await run('guard-fill', {});
    const config = smallRftConfig('guard', {
      heldout: undefined,
      buffer: { table: 'rejected' },
      lifecycle: { mode: 'sync', steps: 1, checkpointEvery: 1 },
    });
    const { RejectedStore } = await import('../../src/store/rejected-store.ts');
    const rej = await RejectedStore.open(db);
    rej.add([{ step: 'x', reason: 'kept', runId: 'other' }]);
    await rej.flush();
    await expect(
      runRft(config, { baseDir: REPO_ROOT, dbDir: db, runDir: join(dir, 'run-guard') }),
    ).rejects.toThrow("buffer.table: table 'rejected' already exists");
    expect((await rej.read({ runId: 'other' })).length).toBe(1);
  });
});
