import { performance } from 'node:perf_hooks';
import type { ModeDriver } from '../driver.ts';
import { exploreStep } from '../explore-step.ts';

/**
 * `explore`: rollouts, experience operators and buffer writes only — no trainer, so the explorer's
 * weights never change. For measuring a model or collecting a buffer for `train` mode later.
 */
export const exploreDriver: ModeDriver = {
  mode: 'explore',
  async run(run) {
    await run.begin({ evaluateFirst: true });
    for (let s = run.step + 1; s <= run.last; s++) {
      const ts = performance.now();
      const version = run.explorerVersion;
      const explored = await exploreStep(run, s);
      await run.writeBuffer(s, explored.rows);
      const stepMs = performance.now() - ts;
      await run.finishStep(
        run.stepRecord({
          step: s,
          explorerVersion: version,
          numbers: explored.numbers,
          train: null,
          exploreMs: explored.exploreMs,
          stepMs,
        }),
      );
    }
  },
};
