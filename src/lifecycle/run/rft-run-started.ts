import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RejectedStore } from '../../store/rejected-store.ts';
import type { RunRecorder } from '../../store/run-table.ts';
import { SelectorStateStore } from '../../store/selector-state-store.ts';
import type { Hooks } from '../hooks.ts';
import { annotatePassRates } from './annotate.ts';
import type { PreparedRft } from './rft-build.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import type { RftParts } from './rft-parts.ts';
import { monitorSteps } from './rft-run-observers.ts';
import { runRftLoop } from './run-loop.ts';
import type { RunPlan } from './run-plan.ts';
import type { StepRecord } from './step-record.ts';
import type { RftRunResult } from './types.ts';

export interface RftReport extends RftRunResult {
  name: string;
  reportFile: string | null;
  files: string[];
  describe: Record<string, string>;
  faults?: Record<string, number>;
}

/** What the run's caller asked of the loop once it has started. */
export interface StartedRunOptions {
  hooks?: Hooks<RftEvents> | undefined;
  stopAfter?: number | undefined;
  onStep?: ((record: StepRecord, total: number) => void) | undefined;
  /** Under --queue: the built parts with the buffer open, for the coordinator. */
  attach?: ((parts: RftParts) => void) | undefined;
}

export interface StartedRun {
  config: RftConfig;
  opts: StartedRunOptions;
  plan: RunPlan;
  prepared: PreparedRft;
  recorder: RunRecorder;
  rollouts: RftParts['rollouts'] | undefined;
  log: (line: string) => void;
}

/** The run once it is recorded as running: open the buffer, run the loop, report. Failures are recorded by the caller. */
export async function runStarted(r: StartedRun): Promise<RftReport> {
  const { config, opts, plan, prepared, rollouts, log } = r;
  const rejected = await RejectedStore.open(plan.dbDir);
  const parts = { ...prepared.parts, buffer: await prepared.openBuffer(), ...(rollouts ? { rollouts } : {}) };
  opts.attach?.(parts);
  log(`run: ${plan.runId}${plan.resume ? ' (resume)' : ''}`);
  for (const [k, v] of Object.entries(parts.describe)) log(`${k}: ${v}`);
  try {
    if (config.lifecycle.mode === 'explore' && config.lifecycle.annotate)
      return await annotateRun(r, parts, rejected);
    return await loopRun(r, parts, rejected);
  } finally {
    await parts.buffer.close().catch(() => undefined);
    parts.dispose?.();
  }
}

/** `mode: explore` with `annotate`: roll out each task, write its pass rate into the task table, done. */
async function annotateRun(r: StartedRun, parts: RftParts, rejected: RejectedStore): Promise<RftReport> {
  const { config, plan, prepared, recorder, log } = r;
  const startedAt = Date.now();
  if (prepared.rejected.length > 0 && !plan.resume) {
    rejected.add(prepared.rejected);
    await rejected.flush();
  }
  const a = config.lifecycle.annotate as NonNullable<RftConfig['lifecycle']['annotate']>;
  const table = 'table' in config.tasks ? config.tasks.table : 'tasks';
  const done = await annotatePassRates({
    explorer: parts.explorer,
    tasks: parts.tasks,
    feature: a.feature,
    repeat: a.repeat,
    batchTasks: config.explorer.batchTasks,
    dbDir: plan.dbDir,
    table,
  });
  log(
    `annotated ${done.annotated} task(s) in table '${table}' with features.${a.feature} (mean ${done.meanPassRate.toFixed(3)}); ${done.failed} without a usable group`,
  );
  await recorder.mark('completed', 0, { annotated: done.annotated, failed: done.failed });
  return {
    runId: plan.runId,
    runDir: plan.runDir,
    steps: 0,
    resumedFrom: 0,
    history: [],
    rolloutExamples: [],
    counters: {},
    durationMs: Date.now() - startedAt,
    name: config.name,
    reportFile: null,
    files: [],
    describe: parts.describe,
  };
}

/** The explore/train loop, then the monitors' files, run.json and the final run record. */
async function loopRun(r: StartedRun, parts: RftParts, rejected: RejectedStore): Promise<RftReport> {
  const { config, opts, plan, prepared, recorder, log } = r;
  const live = monitorSteps(prepared.monitors, opts.onStep);
  const result = await runRftLoop({
    config,
    configHash: plan.configHash,
    runDir: plan.runDir,
    runId: plan.runId,
    parts,
    rejected,
    startRejected: prepared.rejected,
    bufferTable: plan.bufferTable,
    selectorStates: await SelectorStateStore.open(plan.dbDir),
    ...(opts.hooks ? { hooks: opts.hooks } : {}),
    ...(plan.resume ? { resume: true } : {}),
    ...(opts.stopAfter !== undefined ? { stopAfter: opts.stopAfter } : {}),
    onStart: live.onStart,
    onStep: live.onStep,
    log,
  });
  await live.settled();
  const faults = parts.faults ? { ...parts.faults } : undefined;
  const files = await monitorFiles(r, parts, result, faults);
  const report: RftReport = {
    ...result,
    name: config.name,
    reportFile: files.find((f) => f.endsWith('.html')) ?? null,
    files,
    describe: parts.describe,
    ...(faults ? { faults } : {}),
  };
  writeFileSync(join(plan.runDir, 'run.json'), JSON.stringify({ ...report, history: undefined }, null, 2));
  await recordEnd(recorder, config, result, faults);
  return report;
}

/** The files the monitors write at the end (the HTML report first among them, when there is one). */
async function monitorFiles(
  r: StartedRun,
  parts: RftParts,
  result: RftRunResult,
  faults: Record<string, number> | undefined,
): Promise<string[]> {
  const { config, plan, prepared } = r;
  const summary = {
    name: config.name,
    runId: plan.runId,
    config,
    history: result.history,
    ...(result.initialAccuracy !== undefined ? { initialAccuracy: result.initialAccuracy } : {}),
    ...(result.finalAccuracy !== undefined ? { finalAccuracy: result.finalAccuracy } : {}),
    ...(result.initialEvaluation ? { initialEvaluation: result.initialEvaluation } : {}),
    rolloutExamples: result.rolloutExamples,
    describe: parts.describe,
    counters: { ...result.counters, ...(faults ?? {}) },
    durationMs: result.durationMs,
  };
  const files: string[] = [];
  for (const m of prepared.monitors) if (m.onEnd) files.push(...(await m.onEnd(summary)));
  return files;
}

/** Mark the run completed, or interrupted (resumable) when it stopped before its last step. */
async function recordEnd(
  recorder: RunRecorder,
  config: RftConfig,
  result: RftRunResult,
  faults: Record<string, number> | undefined,
): Promise<void> {
  // A bench run evaluates what exists and is done when the loop returns.
  const finished = config.lifecycle.mode === 'bench' || result.steps >= config.lifecycle.steps;
  await recorder.mark(finished ? 'completed' : 'interrupted', 0, {
    steps: result.steps,
    initialAccuracy: result.initialAccuracy,
    finalAccuracy: result.finalAccuracy,
    counters: result.counters,
    rolloutExamples: result.rolloutExamples,
    faults,
    ...(finished ? {} : { reason: `stopped after step ${result.steps} of ${config.lifecycle.steps}` }),
  });
}
