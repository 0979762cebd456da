import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '../../core/task.ts';
import type { SelectorState } from '../../selectors/types.ts';
import type { CheckpointState } from './checkpoint-files.ts';
import { crashPoint } from './crash-points.ts';
import type { RunState } from './run-state.ts';
import type { StepRecord } from './step-record.ts';
import { writingTable } from './table-write.ts';

/** The name a selector state is stored under: its registered type, or `module#export` for a plug-in. */
function selectorName(slot: { type: string } | { module: string; export: string }): string {
  return 'type' in slot ? slot.type : `${slot.module}#${slot.export}`;
}

/**
 * Save a checkpoint after explorer step `atStep`. Everything the checkpoint stands for is written
 * before its `latest.json` pointer, so a kill at any point leaves either this checkpoint complete
 * or the previous one in force: the rejected rows queued so far, the trainer and explorer weights,
 * the selector state's row in `selector_states`, then the state, then the pointer. Only once all
 * of that is on disk are the buffer's deliveries up to this train step acknowledged.
 */
export async function saveCheckpoint(run: RunState, atStep: number): Promise<void> {
  const { parts, opts } = run;
  // Rows rejected up to here belong to this checkpoint; a resume deletes only the later ones.
  await run.flushRejected();
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
    await putSelectorState(run, atStep, state.selector);
  });
  crashPoint('checkpoint-pointer', atStep);
  // Rows rejected from now on must be stamped after the checkpoint's time (see restore).
  await afterMillisecond(state.createdAt);
  // Only now is the training that consumed these deliveries durable.
  await writingTable(`${run.bufferTable}_uses`, () => parts.buffer.ack(run.trainSteps));
  await run.hooks.emit('onCheckpoint', { step: atStep, dir });
  crashPoint('checkpoint', atStep);
}

/** The selector state's row for `step` (replacing one a killed attempt wrote for the same step). */
async function putSelectorState(run: RunState, step: number, state: JsonValue): Promise<void> {
  const store = run.opts.selectorStates;
  if (!store) return;
  const record = {
    runId: run.opts.runId,
    step,
    selector: selectorName(run.config.selector),
    state: JSON.stringify(state),
    createdAt: Date.now(),
  };
  await writingTable('selector_states', () => store.put(record));
}

/** Resolve once the wall clock has passed `time` (ms): at most a millisecond's wait. */
async function afterMillisecond(time: number): Promise<void> {
  while (Date.now() <= time) await new Promise<void>((r) => setImmediate(r));
}

/**
 * `--resume`: load the latest checkpoint into the run (selector, trainer, sampler, explorer weights,
 * counters and history) and take every table back to it: the buffer's deliveries after it are
 * rolled back and the experiences written after it kept for re-use, the run's rows in `rejected`
 * and `selector_states` written after it deleted (the redone steps write them again). With no
 * checkpoint the run starts over, taking back all that a killed first attempt wrote.
 */
export async function restoreLatestCheckpoint(run: RunState): Promise<void> {
  const { parts, opts, log } = run;
  const latest = run.checkpoints.latest();
  if (!latest) {
    log('no checkpoint found: starting from the beginning');
    // A run killed before its first checkpoint may have leased rows, written steps, recorded
    // rejections and (between a selector row and its pointer) a selector state: take all of it
    // back so the restart writes each once, as a fresh run would (re-using the rollouts written).
    run.holdBack(await parts.buffer.resume(0, 0));
    await opts.rejected.deleteRun(opts.runId);
    await opts.selectorStates?.deleteRunAfter(opts.runId, 0);
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
  parts.selector.load((await restoreSelectorState(run, s)) as unknown as SelectorState);
  if (parts.trainer) await parts.trainer.load(join(latest.dir, 'trainer'));
  if (s.sampler !== undefined) parts.buffer.loadSamplerState(s.sampler);
  if (parts.loadExplorer) await parts.loadExplorer(join(latest.dir, 'explorer'));
  // Deliveries after the checkpoint are rolled back; experiences written after it come back to
  // the explorer, which re-uses them instead of rolling out again (nothing acknowledged is lost).
  run.holdBack(await parts.buffer.resume(s.step, s.trainSteps));
  if (run.holdback.size > 0)
    log(`re-using ${run.holdback.size} rollout group(s) written after the checkpoint`);
  run.resumedFrom = run.step;
  // Rejections recorded after the checkpoint will be recorded again as those steps are redone
  // (saveCheckpoint stamps every later row after the checkpoint's time).
  await opts.rejected.deleteRunAfter(opts.runId, s.createdAt);
  run.initialAccuracy =
    typeof s.counters.initialAccuracy === 'number' ? s.counters.initialAccuracy : undefined;
  writeFileSync(
    run.metricsFile,
    run.history.map((h) => JSON.stringify(h)).join('\n') + (run.history.length ? '\n' : ''),
  );
  log(`resumed from checkpoint at step ${run.step} (${latest.dir})`);
}

/**
 * The selector state to resume with, and `selector_states` made to hold exactly the run's rows up
 * to the checkpoint: later rows (a checkpoint killed before its pointer) are deleted, and a row the
 * checkpoint's own copy says is missing (a run killed before the row was part of the checkpoint) is
 * written back from that copy.
 */
async function restoreSelectorState(run: RunState, s: CheckpointState): Promise<JsonValue> {
  const store = run.opts.selectorStates;
  if (!store) return s.selector;
  await store.deleteRunAfter(run.opts.runId, s.step);
  // The selector's state lives in LanceDB next to the tasks; the checkpoint file holds a copy.
  const stored = await store.get(run.opts.runId, s.step);
  if (stored) return JSON.parse(stored.state) as JsonValue;
  await putSelectorState(run, s.step, s.selector);
  return s.selector;
}
