import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '../../core/task.ts';
import type { SelectorState } from '../../selectors/types.ts';
import type { CheckpointState } from '../checkpoints.ts';
import type { RunState } from './run-state.ts';
import type { StepRecord } from './types.ts';

/** The name a selector state is stored under: its registered type, or `module#export` for a plug-in. */
function selectorName(slot: { type: string } | { module: string; export: string }): string {
  return 'type' in slot ? slot.type : `${slot.module}#${slot.export}`;
}

/**
 * Save a checkpoint after explorer step `atStep`: trainer and explorer weights, then the state, then
 * the `latest.json` pointer; the selector state also goes to LanceDB. Only once all of that is on
 * disk are the buffer's deliveries up to this train step acknowledged.
 */
export async function saveCheckpoint(run: RunState, atStep: number): Promise<void> {
  const { parts, opts } = run;
  const state: CheckpointState = {
    step: atStep,
    trainSteps: run.trainSteps,
    explorerVersion: run.explorerVersion,
    configHash: opts.configHash,
    seed: run.config.seed,
    selector: parts.selector.state() as unknown as JsonValue,
    sampler: parts.buffer.samplerState(),
    history: run.history as unknown as CheckpointState['history'],
    counters: run.counters,
    createdAt: Date.now(),
  };
  const dir = await run.checkpoints.save(state, async (d) => {
    if (parts.trainer) await parts.trainer.save(join(d, 'trainer'));
    if (parts.saveExplorer) await parts.saveExplorer(join(d, 'explorer'));
  });
  await opts.selectorStates?.put({
    runId: opts.runId,
    step: atStep,
    selector: selectorName(run.config.selector),
    state: JSON.stringify(state.selector),
    createdAt: Date.now(),
  });
  // Only now is the training that consumed these deliveries durable.
  await parts.buffer.ack(run.trainSteps);
  await run.hooks.emit('onCheckpoint', { step: atStep, dir });
}

/**
 * `--resume`: load the latest checkpoint into the run (selector, trainer, sampler, explorer weights,
 * counters and history), roll the buffer back to it and keep what was written after it for re-use.
 * With no checkpoint the run starts over, still rolling back whatever a killed first attempt left.
 */
export async function restoreLatestCheckpoint(run: RunState): Promise<void> {
  const { parts, opts, log } = run;
  const latest = run.checkpoints.latest();
  if (!latest) {
    log('no checkpoint found: starting from the beginning');
    // A run killed before its first checkpoint may still have leased rows and written steps:
    // roll both back so the restart sees the buffer as a fresh run would (re-using what was written).
    run.holdBack(await parts.buffer.resume(0, 0));
    return;
  }
  const s = latest.state;
  if (s.configHash !== opts.configHash)
    log(
      `warning: resuming a checkpoint written with a different config (hash ${s.configHash} ≠ ${opts.configHash})`,
    );
  run.step = s.step;
  run.trainSteps = s.trainSteps;
  run.explorerVersion = s.explorerVersion;
  run.history = s.history as StepRecord[];
  Object.assign(run.counters, s.counters);
  // The selector's state lives in LanceDB next to the tasks; the checkpoint file holds a copy.
  const stored = await opts.selectorStates?.get(opts.runId, s.step);
  parts.selector.load((stored ? JSON.parse(stored.state) : s.selector) as SelectorState);
  if (parts.trainer) await parts.trainer.load(join(latest.dir, 'trainer'));
  if (s.sampler !== undefined) parts.buffer.loadSamplerState(s.sampler);
  if (parts.loadExplorer) await parts.loadExplorer(join(latest.dir, 'explorer'));
  // Deliveries after the checkpoint are rolled back; experiences written after it come back to
  // the explorer, which re-uses them instead of rolling out again (nothing acknowledged is lost).
  run.holdBack(await parts.buffer.resume(s.step, s.trainSteps));
  if (run.holdback.size > 0)
    log(`re-using ${run.holdback.size} rollout group(s) written after the checkpoint`);
  run.resumedFrom = run.step;
  // Rejections recorded after the checkpoint will be recorded again as those steps are redone.
  await opts.rejected.deleteRunAfter(opts.runId, s.createdAt);
  run.initialAccuracy =
    typeof s.counters.initialAccuracy === 'number' ? s.counters.initialAccuracy : undefined;
  writeFileSync(
    run.metricsFile,
    run.history.map((h) => JSON.stringify(h)).join('\n') + (run.history.length ? '\n' : ''),
  );
  log(`resumed from checkpoint at step ${run.step} (${latest.dir})`);
}
