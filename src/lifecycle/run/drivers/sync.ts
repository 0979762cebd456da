import { performance } from 'node:perf_hooks';
import type { ModeDriver } from '../driver.ts';
import { exploreStep } from '../explore-step.ts';
import { trainStep } from '../train-step.ts';

/**
 * `sync`: explore a step, write it, train on the buffer, and every `syncInterval` steps copy the
 * trainer's weights to the explorer (in between the explorer samples from its own, older copy).
 * `syncOffset: 1` is one step off-policy: the train step samples the buffer as it was before this
 * step's rollouts were written. Bit-for-bit reproducible for a seed.
 */
export const syncDriver: ModeDriver = {
  mode: 'sync',
  async run(run) {
    await run.begin({ evaluateFirst: true });
    const lc = run.lifecycle;
    for (let s = run.step + 1; s <= run.last; s++) {
      const ts = performance.now();
      const version = run.explorerVersion;
      const explored = await exploreStep(run, s);
      let train: Awaited<ReturnType<typeof trainStep>>;
      if (lc.syncOffset === 1) {
        train = await trainStep(run, s);
        await run.writeBuffer(s, explored.rows);
      } else {
        await run.writeBuffer(s, explored.rows);
        train = await trainStep(run, s);
      }
      if (s % lc.syncInterval === 0) await run.syncWeights(s);
      const stepMs = performance.now() - ts;
      await run.finishStep(
        run.stepRecord({
          step: s,
          explorerVersion: version,
          numbers: explored.numbers,
          train,
          exploreMs: explored.exploreMs,
          stepMs,
        }),
      );
    }
  },
};
