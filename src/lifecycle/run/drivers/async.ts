import { performance } from 'node:perf_hooks';
import type { ModeDriver } from '../driver.ts';
import { exploreStep } from '../explore-step.ts';
import { type TrainedStep, trainStep } from '../train-step.ts';

/** Promise-based condition waiting between the two loops of one process (no timers, no polling). */
class Rendezvous {
  private waiters: Array<() => void> = [];
  wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
  async until(cond: () => boolean): Promise<void> {
    while (!cond()) await new Promise<void>((r) => this.waiters.push(r));
  }
}

/**
 * `async`: the explorer and the trainer run as two loops that meet only at the buffer. The explorer
 * may run at most `maxExploreAhead` steps ahead of the trainer; the trainer waits for data and syncs
 * after each update. Today the explorer also waits for step s's update before finishing step s (the
 * record and the checkpoint need it), so it never runs ahead and records equal sync's: overlapping
 * needs per-step snapshots of the explorer side for an exact resume (docs/lifecycle.md, Modes).
 */
export const asyncDriver: ModeDriver = {
  mode: 'async',
  async run(run) {
    await run.begin({ evaluateFirst: true });
    const first = run.step + 1;
    const ahead = run.lifecycle.maxExploreAhead;
    const meet = new Rendezvous();
    let explored = run.step;
    // The explorer steps the trainer loop has handled: a step with nothing to train on counts too
    // (gating on run.trainSteps left both loops waiting once a step trained nothing).
    let handled = run.step;
    const trained = new Map<number, TrainedStep | null>();

    const explorerLoop = async () => {
      for (let s = first; s <= run.last; s++) {
        await meet.until(() => s - 1 - handled <= ahead);
        const ts = performance.now();
        const version = run.explorerVersion;
        const ex = await exploreStep(run, s);
        await run.writeBuffer(s, ex.rows);
        explored = s;
        meet.wake();
        await meet.until(() => trained.has(s) || run.trainSteps >= run.last);
        await run.finishStep(
          run.stepRecord({
            step: s,
            explorerVersion: version,
            numbers: ex.numbers,
            train: trained.get(s) ?? null,
            exploreMs: ex.exploreMs,
            stepMs: performance.now() - ts,
          }),
        );
      }
    };
    const trainerLoop = async () => {
      for (let s = first; s <= run.last; s++) {
        await meet.until(() => explored >= s);
        const r = await trainStep(run, s);
        await run.syncWeights(s);
        trained.set(s, r);
        handled = s;
        meet.wake();
      }
    };
    await Promise.all([explorerLoop(), trainerLoop()]);
  },
};
