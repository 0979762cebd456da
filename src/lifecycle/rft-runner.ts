import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RejectedStore } from '../buffer/rejected-store.ts';
import type { SelectorStateStore } from '../buffer/selector-state-store.ts';
import type { Experience } from '../core/experience.ts';
import type { RejectedInput } from '../core/rejected.ts';
import type { JsonValue, Task } from '../core/task.ts';
import { groupIdOf } from '../explorer/workflow.ts';
import { collectTaskRewards } from '../operators/experience/pass-rate.ts';
import type { SelectorState } from '../selectors/types.ts';
import type { TrainMetrics } from '../trainer/trainer.ts';
import { type CheckpointState, CheckpointStore } from './checkpoints.ts';
import { Hooks } from './hooks.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import type { RftParts } from './rft-parts.ts';

/** The explorer's half of a step record. */
export interface ExploreNumbers {
  tasks: number;
  rollouts: number;
  meanReward: number;
  /** Share of selected groups whose rewards were not all equal (the ones that carry a gradient). */
  effectiveTaskRatio: number;
  meanDifficulty: number;
  failedGroups: number;
  emptyResponses: number;
  experiencesKept: number;
  experiencesDropped: number;
}

/** One explorer step's numbers (one line of metrics.jsonl, one point on the report's charts). */
export interface StepRecord extends ExploreNumbers {
  step: number;
  explorerVersion: number;
  trainSteps: number;
  trainLoss: number;
  exploreMs: number;
  trainMs: number;
  stepMs: number;
  rolloutsPerSecond: number;
  accuracy?: number;
  [key: string]: JsonValue | undefined;
}

export interface RftRunOptions {
  config: RftConfig;
  configHash: string;
  runDir: string;
  runId: string;
  parts: RftParts;
  rejected: RejectedStore;
  hooks?: Hooks<RftEvents>;
  resume?: boolean;
  /** Where selector checkpoints are kept in the database (table `selector_states`). */
  selectorStates?: SelectorStateStore;
  /** Stop after this step (tests of resume); the run can be continued with `resume`. */
  stopAfter?: number;
  onStep?: (record: StepRecord, total: number) => void;
  log?: (line: string) => void;
}

export interface RftRunResult {
  runId: string;
  runDir: string;
  steps: number;
  resumedFrom: number;
  history: StepRecord[];
  initialAccuracy?: number;
  finalAccuracy?: number;
  counters: Record<string, number>;
  durationMs: number;
}

/** Experiences in the order of the tasks they belong to (then by run index). */
function orderLike(tasks: readonly Task[], exps: Experience[]): Experience[] {
  const rank = new Map(tasks.map((t, i) => [t.id, i] as const));
  return exps.sort(
    (a, b) => (rank.get(a.taskId) ?? 0) - (rank.get(b.taskId) ?? 0) || a.runIndex - b.runIndex,
  );
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

function payloadOf(row: unknown): string {
  try {
    return JSON.stringify(row);
  } catch {
    return String(row);
  }
}

/**
 * The explore → experience ops → buffer → train → sync loop, for the modes `sync` (with sync
 * interval and offset), `async`, `explore` and `train`. Every checkpoint emits a typed hook event;
 * selector feedback is delivered as soon as a step's rollouts are in; state is checkpointed every
 * `checkpointEvery` steps and a resumed run continues exactly where the checkpoint left off.
 */
export async function runRftLoop(opts: RftRunOptions): Promise<RftRunResult> {
  const t0 = performance.now();
  const { config, parts, runDir } = opts;
  const lc = config.lifecycle;
  const hooks = opts.hooks ?? new Hooks<RftEvents>();
  const log = opts.log ?? (() => undefined);
  const ckpt = new CheckpointStore(runDir);
  mkdirSync(runDir, { recursive: true });
  const metricsFile = join(runDir, 'metrics.jsonl');
  const taskById = new Map(parts.tasks.map((t) => [t.id, t] as const));

  let step = 0;
  let trainSteps = 0;
  let explorerVersion = 0;
  let history: StepRecord[] = [];
  const counters: Record<string, number> = {
    rollouts: 0,
    failedGroups: 0,
    rejected: 0,
    trained: 0,
    vetoed: 0,
  };
  let initialAccuracy: number | undefined;
  let resumedFrom = 0;
  /** Rollout groups written before a crash but after the checkpoint, by group id (see RunBuffer.resume). */
  const holdback = new Map<string, Experience[]>();

  const record = async (rows: RejectedInput[]) => {
    if (rows.length === 0) return;
    parts_rejected(rows);
    await opts.rejected.flush();
  };
  const parts_rejected = (rows: RejectedInput[]) => {
    counters.rejected = (counters.rejected ?? 0) + rows.length;
    opts.rejected.add(rows.map((r) => ({ runId: opts.runId, ...r })));
  };
  const vetoes = (rows: { step: string; reason: string; row: unknown }[]): RejectedInput[] =>
    rows.map((r) => {
      const row = r.row as { id?: string; source?: { file: string; row: number } };
      counters.vetoed = (counters.vetoed ?? 0) + 1;
      return {
        step: r.step,
        reason: r.reason,
        rowId: row?.id ?? '',
        file: row?.source?.file ?? '',
        row: row?.source?.row ?? -1,
        payload: payloadOf(r.row),
      };
    });

  if (opts.resume) {
    const latest = ckpt.latest();
    if (latest) {
      const s = latest.state;
      if (s.configHash !== opts.configHash)
        log(
          `warning: resuming a checkpoint written with a different config (hash ${s.configHash} ≠ ${opts.configHash})`,
        );
      step = s.step;
      trainSteps = s.trainSteps;
      explorerVersion = s.explorerVersion;
      history = s.history as StepRecord[];
      Object.assign(counters, s.counters);
      // The selector's state lives in LanceDB next to the tasks; the checkpoint file holds a copy.
      const stored = await opts.selectorStates?.get(opts.runId, s.step);
      parts.selector.load((stored ? JSON.parse(stored.state) : s.selector) as SelectorState);
      if (parts.trainer) await parts.trainer.load(join(latest.dir, 'trainer'));
      if (s.sampler !== undefined) parts.buffer.loadSamplerState(s.sampler);
      if (parts.loadExplorer) await parts.loadExplorer(join(latest.dir, 'explorer'));
      // Deliveries after the checkpoint are rolled back; experiences written after it come back to
      // the explorer, which re-uses them instead of rolling out again (nothing acknowledged is lost).
      for (const e of await parts.buffer.resume(s.step, s.trainSteps)) {
        const list = holdback.get(e.groupId) ?? [];
        list.push(e);
        holdback.set(e.groupId, list);
      }
      if (holdback.size > 0) log(`re-using ${holdback.size} rollout group(s) written after the checkpoint`);
      resumedFrom = step;
      // Rejections recorded after the checkpoint will be recorded again as those steps are redone.
      await opts.rejected.deleteRunAfter(opts.runId, s.createdAt);
      initialAccuracy =
        typeof s.counters.initialAccuracy === 'number' ? s.counters.initialAccuracy : undefined;
      writeFileSync(
        metricsFile,
        history.map((h) => JSON.stringify(h)).join('\n') + (history.length ? '\n' : ''),
      );
      log(`resumed from checkpoint at step ${step} (${latest.dir})`);
    } else {
      log('no checkpoint found: starting from the beginning');
      // A run killed before its first checkpoint may still have leased rows and written steps:
      // roll both back so the restart sees the buffer as a fresh run would (re-using what was written).
      for (const e of await parts.buffer.resume(0, 0)) {
        const list = holdback.get(e.groupId) ?? [];
        list.push(e);
        holdback.set(e.groupId, list);
      }
    }
  }
  if (step === 0) {
    writeFileSync(metricsFile, '');
    if (parts.heldout.length > 0 && lc.mode !== 'train') {
      initialAccuracy = await parts.evaluate(parts.heldout);
      counters.initialAccuracy = initialAccuracy;
      await hooks.emit('onEvaluate', { step: 0, accuracy: initialAccuracy, tasks: parts.heldout.length });
      log(`held-out accuracy before training: ${(initialAccuracy * 100).toFixed(1)}%`);
    }
  }

  const checkpoint = async (atStep: number) => {
    const state: CheckpointState = {
      step: atStep,
      trainSteps,
      explorerVersion,
      configHash: opts.configHash,
      seed: config.seed,
      selector: parts.selector.state() as unknown as JsonValue,
      sampler: parts.buffer.samplerState(),
      history: history as unknown as CheckpointState['history'],
      counters,
      createdAt: Date.now(),
    };
    const dir = await ckpt.save(state, async (d) => {
      if (parts.trainer) await parts.trainer.save(join(d, 'trainer'));
      if (parts.saveExplorer) await parts.saveExplorer(join(d, 'explorer'));
    });
    await opts.selectorStates?.put({
      runId: opts.runId,
      step: atStep,
      selector: config.selector.type,
      state: JSON.stringify(state.selector),
      createdAt: Date.now(),
    });
    // Only now is the training that consumed these deliveries durable.
    await parts.buffer.ack(trainSteps);
    await hooks.emit('onCheckpoint', { step: atStep, dir });
  };

  /** One training step from the buffer; returns its metrics (or null when the buffer had nothing). */
  const trainOnce = async (atStep: number): Promise<{ metrics: TrainMetrics; ms: number } | null> => {
    if (!parts.trainer) return null;
    const tt = performance.now();
    const n = lc.trainBatch ?? config.explorer.batchTasks * config.explorer.repeat;
    const sampled = await parts.buffer.sample(n, {
      trainStep: trainSteps + 1,
      modelVersion: parts.trainer.version,
    });
    counters.skippedStale = (counters.skippedStale ?? 0) + sampled.skipped;
    // Prioritised replay's importance weights correct its sampling bias: scaling a sequence's
    // advantage by w scales its policy-gradient term by w (KL and entropy terms are left alone).
    if (sampled.weights.some((w) => w !== 1)) {
      sampled.experiences = sampled.experiences.map((e, i) => {
        const w = sampled.weights[i] ?? 1;
        return w === 1
          ? e
          : {
              ...e,
              advantage: e.advantage * w,
              ...(e.advantages ? { advantages: e.advantages.map((a) => a * w) } : {}),
            };
      });
    }
    const before = await hooks.emit('beforeTrainStep', {
      step: atStep,
      trainStep: trainSteps + 1,
      rows: sampled.experiences,
    });
    if (before.rejected.length > 0) parts_rejected(vetoes(before.rejected));
    if (before.payload.rows.length === 0) return null;
    const metrics = await parts.trainer.step(before.payload.rows);
    trainSteps++;
    counters.trained = (counters.trained ?? 0) + before.payload.rows.length;
    await hooks.emit('afterTrainStep', {
      step: atStep,
      trainStep: trainSteps,
      version: parts.trainer.version,
      metrics,
    });
    return { metrics, ms: performance.now() - tt };
  };

  const syncWeights = async (atStep: number) => {
    explorerVersion = await parts.sync();
    await hooks.emit('onSync', { step: atStep, version: explorerVersion });
  };

  /** Select, roll out, feed back, run experience ops. Returns the processed experiences and the step record so far. */
  const exploreOnce = async (atStep: number) => {
    const te = performance.now();
    await hooks.emit('beforeSelect', { step: atStep, batchTasks: config.explorer.batchTasks });
    const ids = parts.selector.select(config.explorer.batchTasks, { step: atStep });
    const chosen: Task[] = ids.map((id) => taskById.get(id)!).filter(Boolean);
    const selected = await hooks.emit('afterSelect', { step: atStep, rows: chosen });
    const rejectedNow: RejectedInput[] = vetoes(selected.rejected);

    const { reused, fresh } = splitHeldBack(selected.payload.rows, atStep);
    const explored = await parts.explorer.explore(fresh, atStep, explorerVersion);
    if (reused.length > 0)
      explored.experiences = orderLike(selected.payload.rows, [...reused, ...explored.experiences]);
    for (const f of explored.failures) {
      const task = taskById.get(f.taskId);
      rejectedNow.push({
        step: `rollout:${f.kind}`,
        reason: `${f.reason} (after ${f.attempts} attempt(s))`,
        rowId: f.groupId,
        file: task?.source?.file ?? '',
        row: task?.source?.row ?? -1,
        payload: payloadOf({ taskId: f.taskId, groupId: f.groupId }),
      });
    }
    const rolled = await hooks.emit('afterRollout', {
      step: atStep,
      rows: explored.experiences,
      failures: explored.failures,
    });
    rejectedNow.push(...vetoes(rolled.rejected));
    const rollouts = rolled.payload.rows;

    // Feedback first: the selector learns from every group, including the ones filters drop below.
    const groups = collectTaskRewards(rollouts);
    const feedback = parts.selector.feedback(
      groups.map((g) => ({ taskId: g.taskId, rewards: g.rewards })),
      { step: atStep },
    );
    const mixed = groups.filter((g) => {
      const r = g.rewards.filter((x) => Number.isFinite(x));
      return r.length > 1 && r.some((x) => x !== r[0]);
    }).length;
    await hooks.emit('afterFeedback', { step: atStep, groups: feedback.groups, mixedGroups: mixed });

    const processed = await parts.experienceGraph.process(rollouts);
    for (const r of processed.rejected) {
      rejectedNow.push({
        step: `exp:${r.step}`,
        reason: r.reason,
        rowId: r.row.id,
        payload: payloadOf({ ...r.row, tokens: undefined, logprobs: undefined, actionMask: undefined }),
      });
    }
    const afterOps = await hooks.emit('afterExperienceOps', { step: atStep, rows: processed.rows });
    rejectedNow.push(...vetoes(afterOps.rejected));
    await record(rejectedNow);

    counters.rollouts = (counters.rollouts ?? 0) + rollouts.length;
    counters.failedGroups = (counters.failedGroups ?? 0) + explored.failures.length;
    const difficulties = selected.payload.rows
      .map((t) => t.features.difficulty)
      .filter((d): d is number => typeof d === 'number');
    const rewards = rollouts.map((e) => e.reward).filter((r) => Number.isFinite(r));
    return {
      rows: afterOps.payload.rows,
      exploreMs: performance.now() - te,
      partial: {
        tasks: selected.payload.rows.length,
        rollouts: rollouts.length,
        meanReward: mean(rewards),
        effectiveTaskRatio: groups.length === 0 ? 0 : mixed / groups.length,
        meanDifficulty: mean(difficulties),
        failedGroups: explored.failures.length,
        emptyResponses: explored.metrics.emptyResponses,
        experiencesKept: afterOps.payload.rows.length,
        experiencesDropped: rollouts.length - afterOps.payload.rows.length,
      },
    };
  };

  /** Tasks whose group for this step is in the hold-back are not rolled out again. */
  const splitHeldBack = (tasks: Task[], atStep: number) => {
    const reused: Experience[] = [];
    const fresh: Task[] = [];
    for (const t of tasks) {
      const gid = groupIdOf(atStep, t.id);
      const group = holdback.get(gid);
      if (group && group.length >= config.explorer.repeat) {
        reused.push(...group.sort((a, b) => a.runIndex - b.runIndex));
        holdback.delete(gid);
      } else fresh.push(t);
    }
    return { reused, fresh };
  };

  const writeBuffer = async (atStep: number, rows: Experience[]) => {
    await parts.buffer.write(rows);
    await hooks.emit('afterBufferWrite', { step: atStep, written: rows.length });
  };

  const finishStep = async (rec: StepRecord) => {
    if (
      parts.heldout.length > 0 &&
      config.heldout &&
      (rec.step % config.heldout.every === 0 || rec.step === lc.steps)
    ) {
      rec.accuracy = await parts.evaluate(parts.heldout);
      await hooks.emit('onEvaluate', { step: rec.step, accuracy: rec.accuracy, tasks: parts.heldout.length });
    }
    history.push(rec);
    appendFileSync(metricsFile, `${JSON.stringify(rec)}\n`);
    opts.onStep?.(rec, lc.steps);
    if (rec.step % lc.checkpointEvery === 0 || rec.step === lc.steps) await checkpoint(rec.step);
  };

  const last = Math.min(lc.steps, opts.stopAfter ?? lc.steps);
  try {
    if (lc.mode === 'async') {
      await runAsync();
    } else {
      for (let s = step + 1; s <= last; s++) {
        const ts = performance.now();
        let train: { metrics: TrainMetrics; ms: number } | null = null;
        let partial: ExploreNumbers;
        let exploreMs = 0;
        const version = explorerVersion;
        if (lc.mode === 'train') {
          train = await trainOnce(s);
          partial = {
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
        } else {
          const ex = await exploreOnce(s);
          partial = ex.partial;
          exploreMs = ex.exploreMs;
          if (lc.mode === 'sync' && lc.syncOffset === 1) {
            // One step off-policy: train on what the buffer held before this step, then add this step.
            train = await trainOnce(s);
            await writeBuffer(s, ex.rows);
          } else {
            await writeBuffer(s, ex.rows);
            if (lc.mode === 'sync') train = await trainOnce(s);
          }
          if (lc.mode === 'sync' && s % lc.syncInterval === 0) await syncWeights(s);
        }
        const stepMs = performance.now() - ts;
        await finishStep({
          step: s,
          explorerVersion: version,
          trainSteps,
          ...partial,
          trainLoss: train ? (train.metrics.loss ?? Number.NaN) : Number.NaN,
          exploreMs,
          trainMs: train?.ms ?? 0,
          stepMs,
          rolloutsPerSecond: partial.rollouts / Math.max(1e-3, exploreMs / 1000),
        });
      }
    }
  } catch (err) {
    await opts.rejected.flush().catch(() => undefined);
    await hooks
      .emit('onError', {
        step: history.length > 0 ? history[history.length - 1]!.step : step,
        error: err as Error,
      })
      .catch(() => undefined);
    throw err;
  }

  /**
   * Async mode: the explorer and the trainer run as two loops that meet only at the buffer. The
   * explorer may run at most `maxStaleness` steps ahead of the trainer; the trainer waits for data.
   * Interleaving depends on timing, so async runs are not bit-reproducible (sync runs are).
   */
  async function runAsync() {
    let explored = step;
    const waiters: Array<() => void> = [];
    const wake = () => {
      for (const w of waiters.splice(0)) w();
    };
    const waitFor = async (cond: () => boolean) => {
      while (!cond()) await new Promise<void>((r) => waiters.push(r));
    };
    const pendingTrain = new Map<number, { metrics: TrainMetrics; ms: number } | null>();
    const explorerLoop = async () => {
      for (let s = step + 1; s <= last; s++) {
        await waitFor(() => s - 1 - trainSteps <= lc.maxStaleness);
        const ts = performance.now();
        const version = explorerVersion;
        const ex = await exploreOnce(s);
        await writeBuffer(s, ex.rows);
        explored = s;
        wake();
        await waitFor(() => pendingTrain.has(s) || trainSteps >= last);
        const train = pendingTrain.get(s) ?? null;
        await finishStep({
          step: s,
          explorerVersion: version,
          trainSteps,
          ...ex.partial,
          trainLoss: train ? (train.metrics.loss ?? Number.NaN) : Number.NaN,
          exploreMs: ex.exploreMs,
          trainMs: train?.ms ?? 0,
          stepMs: performance.now() - ts,
          rolloutsPerSecond: ex.partial.rollouts / Math.max(1e-3, ex.exploreMs / 1000),
        });
      }
    };
    const trainerLoop = async () => {
      for (let s = step + 1; s <= last; s++) {
        await waitFor(() => explored >= s);
        const r = await trainOnce(s);
        await syncWeights(s);
        pendingTrain.set(s, r);
        wake();
      }
    };
    await Promise.all([explorerLoop(), trainerLoop()]);
  }

  await opts.rejected.flush();
  const finalAccuracy = [...history].reverse().find((h) => typeof h.accuracy === 'number')?.accuracy;
  return {
    runId: opts.runId,
    runDir,
    steps: history.length > 0 ? history[history.length - 1]!.step : 0,
    resumedFrom,
    history,
    ...(initialAccuracy !== undefined ? { initialAccuracy } : {}),
    ...(finalAccuracy !== undefined ? { finalAccuracy } : {}),
    counters,
    durationMs: performance.now() - t0,
  };
}
