import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RejectedStore } from '../buffer/rejected-store.ts';
import { type RunRecord, RunRecorder, RunTable } from '../buffer/run-table.ts';
import { SelectorStateStore } from '../buffer/selector-state-store.ts';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { parseConfig, readYamlFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { roundsSelector } from '../selectors/stages/staged-selector.ts';
import { annotatePassRates } from './annotate.ts';
import type { Hooks } from './hooks.ts';
import { prepareRft } from './rft-build.ts';
import { type RftConfig, rftConfigSchema } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import { recordFailure, StorageReserve } from './rft-failure.ts';
import type { RftParts } from './rft-parts.ts';
import { monitorSteps, onStopSignal } from './rft-run-observers.ts';
import { lastStepBefore, runRftLoop } from './run/run-loop.ts';
import type { StepRecord } from './run/step-record.ts';
import type { RftRunResult } from './run/types.ts';
import { type HeldLeases, releaseRunLeases, takeRunLeases } from './run-leases.ts';
import { planRun, RUN_CONFIG_FILE, type StoredRunConfig } from './run-plan.ts';
import { defaultRegistries, type RunRegistries } from './run-registries.ts';
import { describeRemoval, removeRun } from './run-removal.ts';

export interface RunRftOptions {
  dbDir?: string;
  /** Folder holding one folder per run (default the config's runsDir, else ./.winnow/runs). */
  runsDir?: string;
  /** The exact run folder (default <runsDir>/<run id>). */
  runDir?: string;
  /** Name a new run, or pick the run to resume. */
  runId?: string;
  /** Replace this earlier run (its tables, rejected rows and folder are removed once the start is valid). */
  overwrite?: string;
  seed?: number;
  resume?: boolean;
  /** Override the number of steps (tests, quick looks). */
  steps?: number;
  stopAfter?: number;
  hooks?: Hooks<RftEvents>;
  registries?: RunRegistries;
  /** Record the run as `interrupted` on SIGINT/SIGTERM, then exit (the CLI sets this). */
  handleSignals?: boolean;
  onStep?: (record: StepRecord, total: number) => void;
  log?: (line: string) => void;
  /**
   * Scale-out (`--queue`, src/scale/coordinator.ts): called once the start is valid and before the
   * first write; it takes the run's lease (throwing when another process holds it) and returns the
   * executor that rolls out each step's groups on workers.
   */
  coordinator?: {
    /** Reach the queue (a server that cannot be reached is refused before anything is written). */
    reach?(): Promise<void>;
    claim(run: CoordinatedRunInfo): Promise<RftParts['rollouts']>;
    /** The built parts with the buffer open: the rate limiter and the explorer's weights. */
    attach?(parts: RftParts): void;
    /** Fields for the run record once claimed (where its jobs live, so `gc` can remove them). */
    recordFields?(): Record<string, unknown>;
  };
  /**
   * Remove the queued jobs of the run `--overwrite` replaces (best effort: returns the line to log).
   * The CLI passes src/scale/run-jobs.ts; a library caller without a queue leaves it out.
   */
  removeQueuedJobs?: (removed: RunRecord) => Promise<string | undefined>;
}

/** What a coordinator learns about the run it is to own. */
export interface CoordinatedRunInfo {
  runId: string;
  dbDir: string;
  runDir: string;
  bufferTable: string;
  baseDir: string;
  configFile?: string | undefined;
  config: RftConfig;
  seed: number;
  /** The run record's start (kept across --resume): with the config hash, what keys its queued jobs. */
  startedAt: number;
  configHash: string;
  /** Called once the queue's lease is held and before anything is stored: the run's file leases. */
  onLeased: () => void;
}

export interface RftReport extends RftRunResult {
  name: string;
  reportFile: string | null;
  files: string[];
  describe: Record<string, string>;
  faults?: Record<string, number>;
}

/** Read and parse an RFT config file once, against the schema built from `registries`. */
export function loadRftConfig(file: string, registries: RunRegistries = defaultRegistries()): RftConfig {
  const abs = resolve(file);
  return parseRftConfig(readYamlFile(abs), abs, registries);
}

export function parseRftConfig(
  raw: unknown,
  file?: string,
  registries: RunRegistries = defaultRegistries(),
): RftConfig {
  return parseConfig(rftConfigSchema(registries), raw, file ? { file } : {}) as RftConfig;
}

/** Run an RFT config file: validate and build every part, then run, checkpoint and report. */
export async function runRftFile(file: string, opts: RunRftOptions = {}): Promise<RftReport> {
  const abs = resolve(file);
  const registries = opts.registries ?? defaultRegistries();
  return runRft(loadRftConfig(abs, registries), {
    ...opts,
    registries,
    baseDir: dirname(abs),
    configFile: abs,
  });
}

/**
 * Validate, then act. Everything that can fail on a bad config or a bad path fails before the first
 * write: the plan (run id, folder, tables, --resume and --overwrite checks) and every part. Only
 * then is the run's lease taken (a file lease on a local database, whatever the mode; --queue's
 * coordinator also holds one in Redis), an overwritten run removed, the run folder made and the
 * run recorded.
 */
export async function runRft(
  loaded: RftConfig,
  opts: RunRftOptions & { baseDir: string; configFile?: string },
): Promise<RftReport> {
  const held: HeldLeases = {};
  try {
    return await runRftLeased(loaded, opts, held);
  } finally {
    releaseRunLeases(held);
  }
}

async function runRftLeased(
  loaded: RftConfig,
  opts: RunRftOptions & { baseDir: string; configFile?: string },
  held: HeldLeases,
): Promise<RftReport> {
  const seed = opts.seed ?? loaded.seed;
  const lc = loaded.lifecycle;
  const config: RftConfig = {
    ...loaded,
    seed,
    lifecycle: {
      ...lc,
      ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
      // Paths in the config are relative to its file; the loop gets them resolved.
      ...(lc.benchCheckpoints !== undefined
        ? { benchCheckpoints: resolve(opts.baseDir, lc.benchCheckpoints) }
        : {}),
    },
  };
  const log = opts.log ?? (() => undefined);
  const registries = opts.registries ?? defaultRegistries();
  const plan = await planRun(config, seed, {
    baseDir: opts.baseDir,
    configFile: opts.configFile,
    dbDir: opts.dbDir,
    runsDir: opts.runsDir,
    runDir: opts.runDir,
    runId: opts.runId,
    resume: opts.resume,
    overwrite: opts.overwrite,
  });
  const { runId, runDir, dbDir, configHash } = plan;
  const prepared = await prepareRft(config, {
    baseDir: opts.baseDir,
    configFile: opts.configFile,
    dbDir,
    runDir,
    runId,
    bufferTable: plan.bufferTable,
    seed,
    registries,
    log,
  });
  // Workers roll out one group per task; stages that take rounds inside a step cannot run there yet.
  if (opts.coordinator && roundsSelector(prepared.parts.selector))
    throw new ConfigError({
      path: 'explorer.stages',
      message: 'speed and dapo_ds screen or filter groups in rounds, which --queue workers do not do yet',
      hint: 'run without --queue, or keep only greso in explorer.stages',
      ...(opts.configFile ? { file: opts.configFile } : {}),
    });
  await RunTable.checkSeedIn(dbDir, seed);
  await opts.coordinator?.reach?.();
  const previous = plan.resume ? (await RunTable.readAll(dbDir)).find((r) => r.runId === runId) : undefined;
  const runStartedAt = previous?.startedAt ?? Date.now();
  // ---- validated: from here on, act. One owner per run whatever the mode: a second process on this
  // run or table (`--resume`, `serve`, another coordinator) is refused, naming the holder, first.
  // Under --queue the Redis lease is taken first (a refusal there leaves no lease file behind).
  const mode = opts.coordinator ? 'winnow run --queue' : 'winnow run';
  const takeFileLeases = () =>
    takeRunLeases(held, { dbDir, runId, bufferTable: plan.bufferTable, overwrite: plan.overwrite, mode });
  if (!opts.coordinator) takeFileLeases();
  const rollouts = await opts.coordinator?.claim({
    runId,
    dbDir,
    runDir,
    bufferTable: plan.bufferTable,
    baseDir: opts.baseDir,
    configFile: opts.configFile,
    config,
    seed,
    startedAt: runStartedAt,
    configHash,
    onLeased: takeFileLeases,
  });
  log(`database: ${dbDir}`);
  log(`run folder: ${runDir}`);
  for (const n of plan.notes) log(n);
  if (plan.overwrite) {
    log(describeRemoval(await removeRun(dbDir, plan.overwrite)));
    held.replaced?.releaseSync();
    const line = await opts.removeQueuedJobs?.(plan.overwrite);
    if (line) log(line);
  }
  mkdirSync(runDir, { recursive: true });
  const configFileOut = join(runDir, RUN_CONFIG_FILE);
  if (!plan.resume || !existsSync(configFileOut) || plan.changedHarmless.length > 0) {
    const stored: StoredRunConfig = {
      runId,
      configHash,
      bufferTable: plan.bufferTable,
      config,
      baseDir: opts.baseDir,
    };
    writeFileAtomicSync(configFileOut, `${JSON.stringify(stored, null, 2)}\n`);
  }
  const recorder = new RunRecorder(
    await RunTable.open(dbDir),
    { runId, kind: 'rft', name: config.name, configHash, seed },
    {
      startedAt: runStartedAt,
      fixed: {
        runDir,
        bufferTable: plan.bufferTable,
        pid: process.pid,
        host: hostname(),
        ...opts.coordinator?.recordFields?.(),
      },
    },
  );
  const reserve = StorageReserve.take(dbDir, runId);
  const stopSignals = opts.handleSignals ? onStopSignal(recorder) : () => undefined;
  try {
    await recorder.mark('running', 0, {});
    return await runStarted({ config, opts, plan, prepared, recorder, rollouts, log });
  } catch (err) {
    throw await recordFailure(recorder, err, { runId, dbDir, lastStep: lastStepBefore(err) }, reserve);
  } finally {
    stopSignals();
    reserve?.release();
  }
}

interface StartedRun {
  config: RftConfig;
  opts: RunRftOptions & { baseDir: string; configFile?: string };
  plan: Awaited<ReturnType<typeof planRun>>;
  prepared: Awaited<ReturnType<typeof prepareRft>>;
  recorder: RunRecorder;
  rollouts: RftParts['rollouts'] | undefined;
  log: (line: string) => void;
}

/** The run once it is recorded as running: open the buffer, run the loop, report. Failures are recorded by the caller. */
async function runStarted(r: StartedRun): Promise<RftReport> {
  const { config, opts, plan, prepared, recorder, rollouts, log } = r;
  const { runId, runDir, dbDir, configHash } = plan;
  const seed = config.seed;
  const rejected = await RejectedStore.open(dbDir);
  const parts = { ...prepared.parts, buffer: await prepared.openBuffer(), ...(rollouts ? { rollouts } : {}) };
  opts.coordinator?.attach?.(parts);
  const startedAt = Date.now();
  log(`run: ${runId}${plan.resume ? ' (resume)' : ''}`);
  for (const [k, v] of Object.entries(parts.describe)) log(`${k}: ${v}`);
  if (config.lifecycle.mode === 'explore' && config.lifecycle.annotate) {
    if (prepared.rejected.length > 0 && !plan.resume) {
      rejected.add(prepared.rejected);
      await rejected.flush();
    }
    const a = config.lifecycle.annotate;
    const table = 'table' in config.tasks ? config.tasks.table : 'tasks';
    try {
      const r = await annotatePassRates({
        explorer: parts.explorer,
        tasks: parts.tasks,
        feature: a.feature,
        repeat: a.repeat,
        batchTasks: config.explorer.batchTasks,
        dbDir,
        table,
      });
      log(
        `annotated ${r.annotated} task(s) in table '${table}' with features.${a.feature} (mean ${r.meanPassRate.toFixed(3)}); ${r.failed} without a usable group`,
      );
      await recorder.mark('completed', 0, { annotated: r.annotated, failed: r.failed });
    } finally {
      await parts.buffer.close().catch(() => undefined);
      parts.dispose?.();
    }
    return {
      runId,
      runDir,
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
  const live = monitorSteps(prepared.monitors, opts.onStep);
  try {
    const result = await runRftLoop({
      config: { ...config, seed },
      configHash,
      runDir,
      runId,
      parts,
      rejected,
      startRejected: prepared.rejected,
      bufferTable: plan.bufferTable,
      selectorStates: await SelectorStateStore.open(dbDir),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      ...(plan.resume ? { resume: true } : {}),
      ...(opts.stopAfter !== undefined ? { stopAfter: opts.stopAfter } : {}),
      onStart: live.onStart,
      onStep: live.onStep,
      log,
    });
    await live.settled();
    const faults = parts.faults ? { ...parts.faults } : undefined;
    const summary = {
      name: config.name,
      runId,
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
    const reportFile = files.find((f) => f.endsWith('.html')) ?? null;
    const report: RftReport = {
      ...result,
      name: config.name,
      reportFile,
      files,
      describe: parts.describe,
      ...(faults ? { faults } : {}),
    };
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...report, history: undefined }, null, 2));
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
    return report;
  } finally {
    await parts.buffer.close().catch(() => undefined);
    parts.dispose?.();
  }
}
