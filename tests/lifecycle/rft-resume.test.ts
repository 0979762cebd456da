import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';
import { SelectorStateStore } from '../../src/store/selector-state-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-resume-');

/** The numbers that must match between an interrupted-and-resumed run and a straight one. */
const essence = (h: StepRecord[]) =>
  h.map((r) => ({
    step: r.step,
    v: r.explorerVersion,
    t: r.trainSteps,
    reward: r.meanReward,
    eff: r.effectiveTaskRatio,
    loss: r.trainLoss,
    kept: r.experiencesKept,
    acc: r.accuracy,
  }));

describe('RFT resume', () => {
  it('a run stopped after step 3 (checkpoint at 2) and resumed equals the uninterrupted run, step for step', async () => {
    const config = smallRftConfig('resume', {
      selector: { type: 'bots', params: { m: 4, rho: 0 } },
      experienceOps: [{ op: 'invalid_reward' }, { op: 'reward_std_filter' }, { op: 'grpo' }],
      buffer: { sampler: { type: 'version_priority', params: { decay: 0.5, maxUses: 2 } } },
      lifecycle: { mode: 'sync', steps: 6, checkpointEvery: 2 },
    });
    const straight = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db-a'),
      runDir: join(dir, 'run-a'),
    });
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
    // The selector's checkpoint is in LanceDB next to the tasks, and is what the resume loaded.
    const saved = await (await SelectorStateStore.open(join(dir, 'db-b'))).get(resumed.runId, 2);
    expect(saved?.selector).toBe('bots');
    expect(JSON.parse(saved!.state).type).toBe('bots');
    expect(essence(resumed.history)).toEqual(essence(straight.history));
    expect(resumed.counters.rollouts).toBe(straight.counters.rollouts);
    expect(resumed.finalAccuracy).toBe(straight.finalAccuracy);
  });
});
