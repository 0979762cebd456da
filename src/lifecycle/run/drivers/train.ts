import { performance } from 'node:perf_hooks';
import type { ModeDriver } from '../driver.ts';
import type { ExploreNumbers } from '../step-record.ts';
import { trainStep } from '../train-step.ts';

/** A step with no exploration: nothing selected, nothing rolled out. */
const NOTHING_EXPLORED: ExploreNumbers = {
  tasks: 0,
  rollouts: 0,
  meanReward: Number.NaN,
  effectiveTaskRatio: Number.NaN,
  meanDifficulty: Number.NaN,
  failedGroups: 0,
  emptyResponses: 0,
  experiencesKept: 0,
  experiencesDropped: 0,
};

/**
 * `train`: offline RL from a buffer an earlier run filled (`buffer.table`). One train step per
 * step; the rollout model is never synced (there is no exploration to use it), and there is no
 * evaluation before the first step.
 */
export const trainDriver: ModeDriver = {
  mode: 'train',
  async run(run) {
    await run.begin({ evaluateFirst: false });
    for (let s = run.step + 1; s <= run.last; s++) {
      const ts = performance.now();
      const version = run.explorerVersion;
      const train = await trainStep(run, s);
      const stepMs = performance.now() - ts;
      await run.finishStep(
        run.stepRecord({
          step: s,
          explorerVersion: version,
          numbers: { ...NOTHING_EXPLORED },
          train,
          exploreMs: 0,
          stepMs,
        }),
      );
    }
  },
};
