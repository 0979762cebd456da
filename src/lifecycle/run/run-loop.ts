import { driverFor } from './mode-drivers.ts';
import { RunState } from './run-state.ts';
import type { RftRunOptions, RftRunResult } from './types.ts';

/** The last finished explorer step of a run that failed, by the error it failed with. */
const failedAfter = new WeakMap<object, number>();

/** The last explorer step a failed run finished (undefined: not an error from the loop). */
export function lastStepBefore(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null ? failedAfter.get(err) : undefined;
}

/**
 * The explore → experience ops → buffer → train → sync loop. A `RunState` carries the run from step
 * to step; the driver of `lifecycle.mode` decides the order of explore, train and sync. Every
 * checkpoint emits a typed hook event, selector feedback is delivered as soon as a step's rollouts
 * are in, and a resumed run continues exactly where its checkpoint left off.
 */
export async function runRftLoop(opts: RftRunOptions): Promise<RftRunResult> {
  const driver = driverFor(opts.config.lifecycle.mode);
  const run = new RunState(opts);
  try {
    await driver.run(run);
  } catch (err) {
    if (typeof err === 'object' && err !== null) failedAfter.set(err, run.lastStep());
    await opts.rejected.flush().catch(() => undefined);
    await run.hooks.emit('onError', { step: run.lastStep(), error: err as Error }).catch(() => undefined);
    throw err;
  }
  await run.flushRejected();
  return run.result();
}
