import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from '../buffer/connection.ts';
import { type RunRecord, RunTable } from '../buffer/run-table.ts';
import { ConfigError } from '../core/errors.ts';
import { contentHash, stableStringify } from '../core/ids.ts';
import { resolveDbDir, resolveRunsDir } from '../core/places.ts';
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
  const notes: string[] = [];
  const byId = new Map(runs.map((r) => [r.runId, r] as const));
  const usage = (msg: string, hint?: string) =>
    new ConfigError({ path: '', ...where, message: msg, ...(hint ? { hint } : {}) });

  if (o.resume && o.overwrite) throw usage('--resume and --overwrite cannot be used together');

  if (o.resume) {
    const starter = o.startedBy ?? 'run';
    const sameName = runs.filter((r) => r.kind === 'rft' && r.name === config.name);
    const target = o.runId ? byId.get(o.runId) : sameName[sameName.length - 1];
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
    if (target) {
      const places = runPlaces(target);
      const runDir = resolve(o.runDir ?? places.runDir ?? join(runsDir, target.runId));
      if (places.runDir && o.runDir && resolve(o.runDir) !== places.runDir)
        throw usage(`run '${target.runId}' lives in ${places.runDir}, not ${resolve(o.runDir)}`);
      const stored = readStoredRunConfig(runDir);
      const diff = stored
        ? classifyDiff(meaningOf({ ...stored.config }), meaningOf({ ...config, seed }))
        : null;
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
    notes.push(`nothing to resume for '${config.name}' in ${dbDir}: starting a new run`);
  }

  let overwrite: RunRecord | null = null;
  if (o.overwrite) {
    overwrite = byId.get(o.overwrite) ?? null;
    if (!overwrite)
      throw usage(
        `--overwrite: no run '${o.overwrite}' in ${dbDir}`,
        runs.length > 0 ? `runs there: ${runs.map((r) => r.runId).join(', ')}` : 'there are no runs yet',
      );
  }
  // An id is taken by a recorded run, a table, or (when the folder follows the id) a run folder.
  const taken = (id: string) =>
    byId.has(id) || tables.includes(`${id}_experiences`) || (!o.runDir && holdsRun(join(runsDir, id)));
  let runId = o.runId ?? overwrite?.runId;
  if (runId && runId !== overwrite?.runId && taken(runId))
    throw usage(`run '${runId}' already exists`, `--resume continues it; --overwrite ${runId} replaces it`);
  if (!runId) {
    let k = 1;
    while (taken(`${config.name}-${k}`)) k++;
    runId = `${config.name}-${k}`;
  }
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
  if (config.lifecycle.mode === 'train') {
    if (!tables.includes(bufferTable))
      throw new ConfigError({
        path: 'buffer.table',
        ...where,
        message: `mode train reads an existing buffer, and table '${bufferTable}' does not exist in ${dbDir}`,
        hint: 'name the experience table of an earlier run (winnow runs lists them)',
      });
  } else if (
    tables.includes(bufferTable) &&
    bufferTable !== (overwrite && runPlaces(overwrite).bufferTable)
  ) {
    const owner = runs.find((r) => runPlaces(r).bufferTable === bufferTable);
    throw new ConfigError({
      path: 'buffer.table',
      ...where,
      message: `table '${bufferTable}' already exists${owner ? ` (run '${owner.runId}')` : ''}`,
      hint: owner
        ? `leave buffer.table out (each run gets its own), --resume, or --overwrite ${owner.runId}`
        : 'leave buffer.table out: each run gets its own table',
    });
  }
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
