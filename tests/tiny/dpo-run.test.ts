import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-dpo-run-');

const essence = (h: StepRecord[]) =>
  h.map((r) => ({
    step: r.step,
    v: r.explorerVersion,
    t: r.trainSteps,
    reward: r.meanReward,
    loss: r.trainLoss,
  }));

describe('trainer type dpo in an RFT run', () => {
  it('trains the tiny policy from the run’s groups, and a stopped-then-resumed run equals the straight one', async () => {
    const config = smallRftConfig('dpo-run', {
      trainer: { type: 'dpo', params: { lr: 1e-3, beta: 0.1 } },
      lifecycle: { mode: 'sync', steps: 4, checkpointEvery: 2 },
    });
    const straight = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db-a'),
      runDir: join(dir, 'run-a'),
    });
    expect(straight.steps).toBe(4);
    expect(straight.history.map((r) => r.trainSteps)).toEqual([1, 2, 3, 4]);
    // A step whose groups all tie (effective task ratio 0) gives no pair: no update, loss 0.
    // The first step with pairs starts from policy = reference, so every z is 0 and the loss ln 2.
    const losses = straight.history.map((r) => [r.effectiveTaskRatio, r.trainLoss]);
    expect(losses.map(([eff, loss]) => (eff === 0 ? loss : 'pairs'))).toEqual([0, 'pairs', 0, 'pairs']);
    expect(losses[1]![1]).toBeCloseTo(Math.LN2, 6);
    expect(losses[3]![1]).not.toBeCloseTo(Math.LN2, 6); // the policy has moved off its reference
    for (const r of straight.history) expect(Number.isFinite(r.trainLoss)).toBe(true);
    // Groups that gave no pair are recorded, not silently skipped: every group of a tie step.
    const dropped = (await (await RejectedStore.open(join(dir, 'db-a'))).read()).filter(
      (r) => r.step === 'train:dpo',
    );
    expect(dropped.length).toBeGreaterThanOrEqual(8);
    expect(
      dropped.every((r) =>
        /^no preference pair \((tie|single_rollout|below_margin|invalid_reward|mixed_tasks)\): /.test(
          r.reason,
        ),
      ),
    ).toBe(true);

    const first = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db-b'),
      runDir: join(dir, 'run-b'),
      stopAfter: 3,
    });
    expect(first.steps).toBe(3);
    const resumed = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db-b'),
      runDir: join(dir, 'run-b'),
      resume: true,
    });
    expect(resumed.resumedFrom).toBe(2);
    expect(essence(resumed.history)).toEqual(essence(straight.history));
  });
});
