import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '../../../core/errors.ts';
import { listCheckpoints, readCheckpointState } from '../checkpoint-files.ts';
import type { ModeDriver } from '../driver.ts';
import { evaluateSetsAt } from '../evaluate-step.ts';
import { evalKeys } from '../evaluation/evaluate-sets.ts';
import type { RunState } from '../run-state.ts';

/** A checkpoint of an earlier run to evaluate: its step, explorer weights and counters. */
export interface BenchPoint {
  step: number;
  explorerDir: string;
  explorerVersion: number;
  trainSteps: number;
}

const where = 'lifecycle.benchCheckpoints';

/**
 * The checkpoints a bench run evaluates: the `step-N` folders in `folder` (an earlier run's
 * `checkpoints` folder, or its run folder), in step order, each checked — state readable, explorer
 * weights present — before anything is evaluated. Usable at config validation time too.
 */
export function benchCheckpointsIn(folder: string, o: { canLoadWeights: boolean }): BenchPoint[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new ConfigError({ path: where, message: `no such folder: ${folder}` });
  let found = listCheckpoints(folder);
  if (found.length === 0 && existsSync(join(folder, 'checkpoints')))
    found = listCheckpoints(join(folder, 'checkpoints'));
  if (found.length === 0)
    throw new ConfigError({
      path: where,
      message: `${folder} holds no step-N checkpoint folders`,
      hint: "name an earlier run's checkpoints folder, e.g. .winnow/runs/<run id>/checkpoints",
    });
  if (!o.canLoadWeights)
    throw new ConfigError({
      path: where,
      message: 'this rollout model cannot load checkpoint weights (only the built-in tiny policy can)',
      hint: 'leave benchCheckpoints out to evaluate the model as configured',
    });
  return found.map((c) => {
    const explorerDir = join(c.dir, 'explorer');
    if (!existsSync(explorerDir))
      throw new ConfigError({
        path: where,
        message: `checkpoint ${c.dir} has no explorer weights (folder 'explorer' is missing)`,
      });
    const state = readCheckpointState(c.dir);
    return {
      step: c.step,
      explorerDir,
      explorerVersion: state.explorerVersion,
      trainSteps: state.trainSteps,
    };
  });
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

/** The mode needs something to evaluate: the held-out set or evaluation sets. */
export const NOTHING_TO_BENCH = {
  path: 'heldout',
  message: 'mode bench evaluates on the held-out set or the evaluation sets, and there is none',
  hint: 'add heldout: { source: … } or evaluation: { sets: [{ name, source, k }] }',
};

/**
 * Evaluate the rollout model as it is now and record it as step `step`: held-out accuracy (when
 * there is a held-out set) and every evaluation set's mean@k and pass@k. Returns the accuracy.
 */
async function evaluateAt(run: RunState, step: number, total: number): Promise<number | undefined> {
  const heldout = run.parts.heldout;
  const sets = run.parts.evalSets ?? [];
  const te = performance.now();
  let accuracy: number | undefined;
  if (heldout.length > 0) {
    accuracy = await run.parts.evaluate(heldout);
    await run.hooks.emit('onEvaluate', { step, accuracy, tasks: heldout.length });
  }
  const setMetrics = await evaluateSetsAt(run, step);
  const ms = performance.now() - te;
  // The step's numbers describe the held-out set, or else every evaluation sample together.
  const tasks = heldout.length > 0 ? heldout : sets.flatMap((s) => s.tasks);
  const rollouts = heldout.length > 0 ? heldout.length : sets.reduce((a, s) => a + s.tasks.length * s.n, 0);
  const meanReward =
    accuracy ??
    sets.reduce((a, s) => a + (setMetrics[evalKeys(s.name, s.k).mean] ?? 0) * s.tasks.length * s.n, 0) /
      rollouts;
  const difficulties = tasks
    .map((t) => t.features.difficulty)
    .filter((d): d is number => typeof d === 'number');
  const rec = run.stepRecord({
    step,
    explorerVersion: run.explorerVersion,
    // One greedy rollout per held-out task; the mean reward is the accuracy (failures count 0).
    numbers: {
      tasks: tasks.length,
      rollouts,
      meanReward,
      effectiveTaskRatio: Number.NaN,
      meanDifficulty: mean(difficulties),
      failedGroups: 0,
      emptyResponses: 0,
      experiencesKept: 0,
      experiencesDropped: 0,
    },
    train: null,
    exploreMs: ms,
    stepMs: ms,
  });
  if (accuracy !== undefined) rec.accuracy = accuracy;
  Object.assign(rec, setMetrics);
  run.appendRecord(rec, total);
  return accuracy;
}

/**
 * `bench`: no training, no buffer writes. Held-out accuracy and every evaluation set's mean@k and
 * pass@k of the rollout model as configured (step 0), then of every checkpoint of an earlier run
 * in step order (`benchCheckpoints`), one step record each. A bench run keeps no state, so `--resume` simply evaluates again.
 */
export const benchDriver: ModeDriver = {
  mode: 'bench',
  async run(run) {
    if (run.parts.heldout.length === 0 && (run.parts.evalSets?.length ?? 0) === 0)
      throw new ConfigError(NOTHING_TO_BENCH);
    const folder = run.lifecycle.benchCheckpoints;
    const points =
      folder === undefined ? [] : benchCheckpointsIn(folder, { canLoadWeights: !!run.parts.loadExplorer });
    if (run.opts.resume) {
      run.log('bench runs keep no state: evaluating from the start');
      // What a killed attempt recorded is recorded again below.
      await run.opts.rejected.deleteRun(run.opts.runId);
    }
    writeFileSync(run.metricsFile, '');
    await run.recordStartRejected();
    const total = 1 + points.length;
    run.initialAccuracy = await evaluateAt(run, 0, total);
    if (run.initialAccuracy !== undefined) {
      run.counters.initialAccuracy = run.initialAccuracy;
      run.log(`held-out accuracy of the configured model: ${(run.initialAccuracy * 100).toFixed(1)}%`);
    }
    for (const p of points) {
      await run.parts.loadExplorer!(p.explorerDir);
      run.explorerVersion = p.explorerVersion;
      run.trainSteps = p.trainSteps;
      const accuracy = await evaluateAt(run, p.step, total);
      if (accuracy !== undefined)
        run.log(`held-out accuracy at checkpoint step ${p.step}: ${(accuracy * 100).toFixed(1)}%`);
    }
  },
};
