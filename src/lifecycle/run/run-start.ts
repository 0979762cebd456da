import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic-file.ts';
import { type RunRecord, RunRecorder, RunTable } from '../../store/run-table.ts';
import { type PreparedRft, prepareRft } from './rft-build.ts';
import type { RftConfig } from './rft-config.ts';
import {
  type PlanOptions,
  planRun,
  RUN_CONFIG_FILE,
  type RunPlan,
  type StoredRunConfig,
} from './run-plan.ts';
import type { RunRegistries } from './run-registries.ts';

/**
 * The start every RFT run shares, whoever starts it (`winnow run`, `--queue`, `winnow serve`):
 * plan → build → record. The first two read only; `recordRunStart` is the first act.
 */

export interface BuildRunOptions extends PlanOptions {
  registries: RunRegistries;
  log: (line: string) => void;
  /** Checks of the starter on the built parts, before the seed check (e.g. what --queue cannot run). */
  checkParts?: (prepared: PreparedRft) => void;
}

/** A run planned and built, nothing written. */
export interface BuiltRun {
  plan: RunPlan;
  prepared: PreparedRft;
  /** The record of the run being resumed (its start time is kept). */
  previous: RunRecord | undefined;
}

/**
 * Plan the run (id, folder, tables, --resume and --overwrite checks), build every part and check
 * that the runs table can hold the seed. Reads only.
 */
export async function buildRunParts(config: RftConfig, seed: number, o: BuildRunOptions): Promise<BuiltRun> {
  const plan = await planRun(config, seed, o);
  const { runId, runDir, dbDir, bufferTable } = plan;
  const prepared = await prepareRft(config, {
    baseDir: o.baseDir,
    configFile: o.configFile,
    dbDir,
    runDir,
    runId,
    bufferTable,
    seed,
    registries: o.registries,
    log: o.log,
  });
  o.checkParts?.(prepared);
  await RunTable.checkSeedIn(dbDir, seed);
  return { plan, prepared, previous: await previousRecord(plan) };
}

/** The run record `--resume` continues (undefined for a new run). */
async function previousRecord(plan: RunPlan): Promise<RunRecord | undefined> {
  if (!plan.resume) return undefined;
  return (await RunTable.readAll(plan.dbDir)).find((r) => r.runId === plan.runId);
}

export interface RecordRunOptions {
  /** The config as the run uses it (seed and overrides applied): stored in the run folder. */
  config: RftConfig;
  seed: number;
  baseDir: string;
  /** The run record's start (default the resumed run's, else now). */
  startedAt?: number;
  /** Summary fields of the starter (a serve mark, where queued jobs live). */
  fixed?: Record<string, unknown>;
  log: (line: string) => void;
  /** Acts that come before the run folder is made (removing the run --overwrite names). */
  beforeFolder?: () => Promise<void>;
}

/**
 * The first acts of a validated start: log where the run lives, make its folder, store its config
 * (a resumed run keeps the stored one unless harmless keys changed) and make its recorder. The
 * caller marks it running.
 */
export async function recordRunStart(built: BuiltRun, o: RecordRunOptions): Promise<RunRecorder> {
  const { plan, previous } = built;
  const { runId, runDir, dbDir, configHash, bufferTable } = plan;
  o.log(`database: ${dbDir}`);
  o.log(`run folder: ${runDir}`);
  for (const n of plan.notes) o.log(n);
  await o.beforeFolder?.();
  mkdirSync(runDir, { recursive: true });
  const configFileOut = join(runDir, RUN_CONFIG_FILE);
  if (!plan.resume || !existsSync(configFileOut) || plan.changedHarmless.length > 0) {
    const stored: StoredRunConfig = { runId, configHash, bufferTable, config: o.config, baseDir: o.baseDir };
    writeFileAtomicSync(configFileOut, `${JSON.stringify(stored, null, 2)}\n`);
  }
  const startedAt = o.startedAt ?? previous?.startedAt;
  return new RunRecorder(
    await RunTable.open(dbDir),
    { runId, kind: 'rft', name: o.config.name, configHash, seed: o.seed },
    {
      ...(startedAt !== undefined ? { startedAt } : {}),
      fixed: { runDir, bufferTable, pid: process.pid, host: hostname(), ...o.fixed },
    },
  );
}
