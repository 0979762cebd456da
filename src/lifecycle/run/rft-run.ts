import { dirname, resolve } from 'node:path';
import { parseConfig } from '../../core/config.ts';
import { ConfigError } from '../../core/errors.ts';
import { readYamlFile } from '../../core/yaml-file.ts';
import { roundsSelector } from '../../selectors/stages/staged-selector.ts';
import type { RunRecord } from '../../store/run-table.ts';
import type { Hooks } from '../hooks.ts';
import type { PreparedRft } from './rft-build.ts';
import { type RftConfig, rftConfigSchema } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import { recordFailure, StorageReserve } from './rft-failure.ts';
import type { RftParts } from './rft-parts.ts';
import { onStopSignal } from './rft-run-observers.ts';
import { type RftReport, runStarted } from './rft-run-started.ts';
import { type HeldLeases, releaseRunLeases, takeRunLeases } from './run-leases.ts';
import { lastStepBefore } from './run-loop.ts';
import type { RunPlan } from './run-plan.ts';
import { defaultRegistries, type RunRegistries } from './run-registries.ts';
import { describeRemoval, removeRun } from './run-removal.ts';
import { type BuiltRun, buildRunParts, recordRunStart } from './run-start.ts';
import type { StepRecord } from './step-record.ts';

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
  const config = withRunOverrides(loaded, opts);
  const seed = config.seed;
  const log = opts.log ?? (() => undefined);
  const built = await buildRunParts(config, seed, {
    baseDir: opts.baseDir,
    configFile: opts.configFile,
    dbDir: opts.dbDir,
    runsDir: opts.runsDir,
    runDir: opts.runDir,
    runId: opts.runId,
    resume: opts.resume,
    overwrite: opts.overwrite,
    registries: opts.registries ?? defaultRegistries(),
    log,
    ...(opts.coordinator ? { checkParts: (p: PreparedRft) => checkQueueable(p, opts.configFile) } : {}),
  });
  await opts.coordinator?.reach?.();
  const startedAt = built.previous?.startedAt ?? Date.now();
  // ---- validated: from here on, act.
  const rollouts = await takeLeases(built, config, opts, held, startedAt);
  const { plan, prepared } = built;
  const recorder = await recordRunStart(built, {
    config,
    seed,
    baseDir: opts.baseDir,
    startedAt,
    fixed: opts.coordinator?.recordFields?.() ?? {},
    log,
    beforeFolder: () => removeOverwritten(plan, opts, held, log),
  });
  const reserve = StorageReserve.take(plan.dbDir, plan.runId);
  const stopSignals = opts.handleSignals ? onStopSignal(recorder) : () => undefined;
  try {
    await recorder.mark('running', 0, {});
    const started = {
      hooks: opts.hooks,
      stopAfter: opts.stopAfter,
      onStep: opts.onStep,
      attach: (parts: RftParts) => opts.coordinator?.attach?.(parts),
    };
    return await runStarted({ config, opts: started, plan, prepared, recorder, rollouts, log });
  } catch (err) {
    throw await recordFailure(
      recorder,
      err,
      { runId: plan.runId, dbDir: plan.dbDir, lastStep: lastStepBefore(err) },
      reserve,
    );
  } finally {
    stopSignals();
    reserve?.release();
  }
}

/** The config as this run uses it: the seed and step overrides applied, paths resolved from its file. */
function withRunOverrides(loaded: RftConfig, opts: RunRftOptions & { baseDir: string }): RftConfig {
  const lc = loaded.lifecycle;
  return {
    ...loaded,
    seed: opts.seed ?? loaded.seed,
    lifecycle: {
      ...lc,
      ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
      ...(lc.benchCheckpoints !== undefined
        ? { benchCheckpoints: resolve(opts.baseDir, lc.benchCheckpoints) }
        : {}),
    },
  };
}

/** Workers roll out one group per task; stages that take rounds inside a step cannot run there yet. */
function checkQueueable(prepared: PreparedRft, configFile: string | undefined): void {
  if (!roundsSelector(prepared.parts.selector)) return;
  throw new ConfigError({
    path: 'explorer.stages',
    message: 'speed and dapo_ds screen or filter groups in rounds, which --queue workers do not do yet',
    hint: 'run without --queue, or keep only greso in explorer.stages',
    ...(configFile ? { file: configFile } : {}),
  });
}

/**
 * One owner per run whatever the mode: a second process on this run or table (`--resume`, `serve`,
 * another coordinator) is refused, naming the holder, first. Under --queue the Redis lease is taken
 * first (a refusal there leaves no lease file behind) and the coordinator returns the rollouts.
 */
async function takeLeases(
  built: BuiltRun,
  config: RftConfig,
  opts: RunRftOptions & { baseDir: string; configFile?: string },
  held: HeldLeases,
  startedAt: number,
): Promise<RftParts['rollouts'] | undefined> {
  const { runId, dbDir, runDir, bufferTable, configHash, overwrite } = built.plan;
  const mode = opts.coordinator ? 'winnow run --queue' : 'winnow run';
  const takeFileLeases = () => takeRunLeases(held, { dbDir, runId, bufferTable, overwrite, mode });
  if (!opts.coordinator) takeFileLeases();
  return opts.coordinator?.claim({
    runId,
    dbDir,
    runDir,
    bufferTable,
    baseDir: opts.baseDir,
    configFile: opts.configFile,
    config,
    seed: config.seed,
    startedAt,
    configHash,
    onLeased: takeFileLeases,
  });
}

/** --overwrite: remove what the replaced run owns (its tables, rows, folder, record, queued jobs). */
async function removeOverwritten(
  plan: RunPlan,
  opts: RunRftOptions,
  held: HeldLeases,
  log: (line: string) => void,
): Promise<void> {
  if (!plan.overwrite) return;
  log(describeRemoval(await removeRun(plan.dbDir, plan.overwrite)));
  held.replaced?.releaseSync();
  const line = await opts.removeQueuedJobs?.(plan.overwrite);
  if (line) log(line);
}
