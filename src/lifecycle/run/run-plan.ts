import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { contentHash, stableStringify } from '../../core/ids.ts';
import { resolveDbDir, resolveRunsDir } from '../../core/places.ts';
import { connect } from '../../store/connection.ts';
import { type RunRecord, RunTable } from '../../store/run-table.ts';
import { classifyDiff, meaningOf } from './config-diff.ts';
import type { RftConfig } from './rft-config.ts';

/** Where a run lives and what it may touch, decided before anything is written. */
export interface RunPlan {
  runId: string;
  dbDir: string;
  runDir: string;
  bufferTable: string;
  /** Hash of the keys that decide results (see config-diff.ts). */
  configHash: string;
  /** Continue `runId` from its last checkpoint. */
  resume: boolean;
  /** An earlier run the user named with --overwrite: removed once the start is validated. */
  overwrite: RunRecord | null;
  /** Keys changed since the resumed run's config that do not alter results (logged). */
  changedHarmless: string[];
  /** Lines for the run log. */
  notes: string[];
}

export interface PlanOptions {
  baseDir: string;
  configFile?: string | undefined;
  dbDir?: string | undefined;
  runsDir?: string | undefined;
  /** The exact run folder (else <runsDir>/<runId>). */
  runDir?: string | undefined;
  /** Name the run (new) or pick the run to resume. */
  runId?: string | undefined;
  resume?: boolean | undefined;
  /** Run id to replace. */
  overwrite?: string | undefined;
  /** The command planning the run: --resume picks only runs that command started (default `run`). */
  startedBy?: RunStarter | undefined;
}

export type RunStarter = 'run' | 'serve';

/** Which command started a run: `winnow serve` marks its records with `serve: true` in the summary. */
export function runStarter(summary: string): RunStarter {
  try {
    return (JSON.parse(summary) as Record<string, unknown>).serve === true ? 'serve' : 'run';
  } catch {
    return 'run';
  }
}

/** The file in each run folder that records its parsed config, for --resume checks and `winnow runs`. */
export const RUN_CONFIG_FILE = 'run-config.json';

export interface StoredRunConfig {
  runId: string;
  configHash: string;
  bufferTable: string;
  config: RftConfig;
  /** The config file's folder: relative paths in `config` (the task file…) resolve from here. */
  baseDir?: string;
}

export function readStoredRunConfig(runDir: string): StoredRunConfig | null {
  const f = join(runDir, RUN_CONFIG_FILE);
  if (!existsSync(f)) return null;
  try {
    return JSON.parse(readFileSync(f, 'utf8')) as StoredRunConfig;
  } catch {
    return null;
  }
}

/** A run record's summary fields written at start (run folder, buffer table). */
export function runPlaces(r: RunRecord): { runDir?: string; bufferTable?: string } {
  try {
    const s = JSON.parse(r.summary) as { runDir?: unknown; bufferTable?: unknown };
    return {
      ...(typeof s.runDir === 'string' ? { runDir: s.runDir } : {}),
      ...(typeof s.bufferTable === 'string' ? { bufferTable: s.bufferTable } : {}),
    };
  } catch {
    return {};
  }
}

const holdsRun = (dir: string) =>
  existsSync(dir) &&
  readdirSync(dir).some((f) => [RUN_CONFIG_FILE, 'checkpoints', 'metrics.jsonl', 'run.json'].includes(f));

/**
 * Decide the run's id, folder and tables, and check the start against what exists: a new run never
 * reuses another run's folder or table; --resume refuses a config that changes results (naming the
 * keys); --overwrite must name a run that exists. Reads only.
 */
export async function planRun(config: RftConfig, seed: number, o: PlanOptions): Promise<RunPlan> {
  const where = o.configFile ? { file: o.configFile } : {};
  const dbDir = resolveDbDir({ flag: o.dbDir, configValue: config.db, configDir: o.baseDir });
  const runsDir = resolveRunsDir({ flag: o.runsDir, configValue: config.runsDir, configDir: o.baseDir });
  const configHash = contentHash(stableStringify(meaningOf({ ...config, seed })));
  const runs = await RunTable.readAll(dbDir);
  const tables = existsSync(dbDir) ? await (await connect(dbDir)).tableNames() : [];
  const known: KnownRuns = {
    dbDir,
    runsDir,
    runs,
    tables,
    byId: new Map(runs.map((r) => [r.runId, r] as const)),
  };
  const usage = usageError(where);
  if (o.resume && o.overwrite) throw usage('--resume and --overwrite cannot be used together');
  const notes: string[] = [];
  if (o.resume) {
    const resumed = planResume(config, seed, o, known, configHash, notes);
    if (resumed) return resumed;
  }
  const overwrite = overwriteTarget(o, known, usage);
  const runId = newRunId(config, o, known, overwrite, usage);
  const runDir = resolve(o.runDir ?? join(runsDir, runId));
  const overwrittenDir = overwrite ? runPlaces(overwrite).runDir : undefined;
  if (holdsRun(runDir) && runDir !== overwrittenDir) {
    const owner = readStoredRunConfig(runDir)?.runId ?? 'an earlier run';
    throw usage(
      `run folder ${runDir} already holds ${owner === 'an earlier run' ? owner : `run '${owner}'`}`,
      owner === 'an earlier run'
        ? 'pick another --run-dir'
        : `--resume continues it; --overwrite ${owner} replaces it; or pick another --run-dir`,
    );
  }
  const bufferTable = config.buffer.table ?? `${runId}_experiences`;
  checkBufferTable(config, bufferTable, known, overwrite, where);
  return {
    runId,
    dbDir,
    runDir,
    bufferTable,
    configHash,
    resume: false,
    overwrite,
    changedHarmless: [],
    notes,
  };
}

/** What exists where a run is planned: its database's runs and tables, and the runs folder. */
interface KnownRuns {
  dbDir: string;
  runsDir: string;
  runs: RunRecord[];
  tables: string[];
  byId: Map<string, RunRecord>;
}

type UsageError = (message: string, hint?: string) => ConfigError;

function usageError(where: { file?: string }): UsageError {
  return (message, hint) => new ConfigError({ path: '', ...where, message, ...(hint ? { hint } : {}) });
}

/**
 * --resume: the plan of the run to continue (the named run, else the config's latest), refusing
 * a run another command started or a config that changes results; null when there is nothing to
 * resume (a note says so, and a new run is planned).
 */
function planResume(
  config: RftConfig,
  seed: number,
  o: PlanOptions,
  known: KnownRuns,
  configHash: string,
  notes: string[],
): RunPlan | null {
  const usage = usageError(o.configFile ? { file: o.configFile } : {});
  const { dbDir } = known;
  const starter = o.startedBy ?? 'run';
  const sameName = known.runs.filter((r) => r.kind === 'rft' && r.name === config.name);
  const target = o.runId ? known.byId.get(o.runId) : sameName[sameName.length - 1];
  if (target && runStarter(target.summary) !== starter)
    throw usage(
      `run '${target.runId}' was started by winnow ${runStarter(target.summary)}, not winnow ${starter}`,
      `winnow ${runStarter(target.summary)} --resume continues it; without --resume this starts a new run`,
    );
  if (o.runId && !target)
    throw usage(
      `no run '${o.runId}' to resume in ${dbDir}`,
      sameName.length > 0
        ? `runs of '${config.name}': ${sameName.map((r) => r.runId).join(', ')}`
        : 'see winnow runs',
    );
  if (!target) {
    notes.push(`nothing to resume for '${config.name}' in ${dbDir}: starting a new run`);
    return null;
  }
  const places = runPlaces(target);
  const runDir = resolve(o.runDir ?? places.runDir ?? join(known.runsDir, target.runId));
  if (places.runDir && o.runDir && resolve(o.runDir) !== places.runDir)
    throw usage(`run '${target.runId}' lives in ${places.runDir}, not ${resolve(o.runDir)}`);
  const stored = readStoredRunConfig(runDir);
  const diff = stored ? classifyDiff(meaningOf({ ...stored.config }), meaningOf({ ...config, seed })) : null;
  if (diff && diff.meaning.length > 0)
    throw usage(
      `--resume: the config differs from run '${target.runId}' in ${diff.meaning.join(', ')}`,
      'these keys change results; start a new run (without --resume) to compare, or restore them',
    );
  const changed = stored ? classifyDiff(stored.config, { ...config, seed }).harmless : [];
  if (changed.length > 0) notes.push(`resuming with changed ${changed.join(', ')} (results unaffected)`);
  return {
    runId: target.runId,
    dbDir,
    runDir,
    bufferTable:
      stored?.bufferTable ?? places.bufferTable ?? config.buffer.table ?? `${target.runId}_experiences`,
    configHash,
    resume: true,
    overwrite: null,
    changedHarmless: changed,
    notes,
  };
}

/** --overwrite: the run it names, which must exist. */
function overwriteTarget(o: PlanOptions, known: KnownRuns, usage: UsageError): RunRecord | null {
  if (!o.overwrite) return null;
  const overwrite = known.byId.get(o.overwrite);
  if (!overwrite)
    throw usage(
      `--overwrite: no run '${o.overwrite}' in ${known.dbDir}`,
      known.runs.length > 0
        ? `runs there: ${known.runs.map((r) => r.runId).join(', ')}`
        : 'there are no runs yet',
    );
  return overwrite;
}

/** The new run's id: the one asked for (or the overwritten run's), else `<name>-<n>` with the first free n. */
function newRunId(
  config: RftConfig,
  o: PlanOptions,
  known: KnownRuns,
  overwrite: RunRecord | null,
  usage: UsageError,
): string {
  // An id is taken by a recorded run, a table, or (when the folder follows the id) a run folder.
  const taken = (id: string) =>
    known.byId.has(id) ||
    known.tables.includes(`${id}_experiences`) ||
    (!o.runDir && holdsRun(join(known.runsDir, id)));
  const runId = o.runId ?? overwrite?.runId;
  if (runId && runId !== overwrite?.runId && taken(runId))
    throw usage(`run '${runId}' already exists`, `--resume continues it; --overwrite ${runId} replaces it`);
  if (runId) return runId;
  let k = 1;
  while (taken(`${config.name}-${k}`)) k++;
  return `${config.name}-${k}`;
}

/** mode train reads an existing buffer table; every other mode needs one no other run owns. */
function checkBufferTable(
  config: RftConfig,
  bufferTable: string,
  known: KnownRuns,
  overwrite: RunRecord | null,
  where: { file?: string },
): void {
  const { tables, dbDir } = known;
  if (config.lifecycle.mode === 'train') {
    if (!tables.includes(bufferTable))
      throw new ConfigError({
        path: 'buffer.table',
        ...where,
        message: `mode train reads an existing buffer, and table '${bufferTable}' does not exist in ${dbDir}`,
        hint: 'name the experience table of an earlier run (winnow runs lists them)',
      });
    return;
  }
  if (!tables.includes(bufferTable) || bufferTable === (overwrite && runPlaces(overwrite).bufferTable))
    return;
  const owner = known.runs.find((r) => runPlaces(r).bufferTable === bufferTable);
  throw new ConfigError({
    path: 'buffer.table',
    ...where,
    message: `table '${bufferTable}' already exists${owner ? ` (run '${owner.runId}')` : ''}`,
    hint: owner
      ? `leave buffer.table out (each run gets its own), --resume, or --overwrite ${owner.runId}`
      : 'leave buffer.table out: each run gets its own table',
  });
}
