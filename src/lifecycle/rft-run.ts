import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { connect } from '../buffer/connection.ts';
import { RejectedStore } from '../buffer/rejected-store.ts';
import { RunRecorder, RunTable } from '../buffer/run-table.ts';
import { SelectorStateStore } from '../buffer/selector-state-store.ts';
import { parseConfig, readYamlFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { contentHash, stableStringify } from '../core/ids.ts';
import { annotatePassRates } from './annotate.ts';
import type { Hooks } from './hooks.ts';
import { renderReport } from './report-html.ts';
import { buildRftParts } from './rft-build.ts';
import { type RftConfig, RftConfigSchema } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import { type RftRunResult, runRftLoop, type StepRecord } from './rft-runner.ts';

export interface RunRftOptions {
  dbDir?: string;
  runDir?: string;
  seed?: number;
  resume?: boolean;
  /** Override the number of steps (tests, quick looks). */
  steps?: number;
  stopAfter?: number;
  hooks?: Hooks<RftEvents>;
  onStep?: (record: StepRecord, total: number) => void;
  log?: (line: string) => void;
}

export interface RftReport extends RftRunResult {
  name: string;
  reportFile: string | null;
  describe: Record<string, string>;
  faults?: Record<string, number>;
}

export function loadRftConfig(file: string): RftConfig {
  return parseConfig(RftConfigSchema, readYamlFile(file), { file: resolve(file) });
}

/** Run an RFT config file: build its parts, run the loop, write metrics, checkpoints and the HTML report. */
export async function runRftFile(file: string, opts: RunRftOptions = {}): Promise<RftReport> {
  const abs = resolve(file);
  const baseDir = dirname(abs);
  const loaded = loadRftConfig(abs);
  const config: RftConfig =
    opts.steps !== undefined ? { ...loaded, lifecycle: { ...loaded.lifecycle, steps: opts.steps } } : loaded;
  return runRft(config, { ...opts, baseDir, configFile: abs });
}

export async function runRft(
  config: RftConfig,
  opts: RunRftOptions & { baseDir: string; configFile?: string },
): Promise<RftReport> {
  const seed = opts.seed ?? config.seed;
  const dbDir = resolve(opts.dbDir ?? (config.db ? resolve(opts.baseDir, config.db) : './.winnow/db'));
  const runDir = resolve(
    opts.runDir ??
      (config.runDir ? resolve(opts.baseDir, config.runDir) : join('.winnow', 'runs', config.name)),
  );
  mkdirSync(runDir, { recursive: true });
  const configHash = contentHash(stableStringify({ ...config, seed }));
  const runId = `${config.name}-${configHash.slice(0, 8)}-${seed}`;
  const log = opts.log ?? (() => undefined);
  const rejected = await RejectedStore.open(dbDir);
  const recorder = new RunRecorder(await RunTable.open(dbDir), {
    runId,
    kind: 'rft',
    name: config.name,
    configHash,
    seed,
  });
  const startedAt = Date.now();
  await recorder.mark('running', 0, {});

  if (!opts.resume && config.lifecycle.mode !== 'train') await startFresh(config, dbDir, runDir, runId, log);
  const parts = await buildRftParts(config, {
    baseDir: opts.baseDir,
    ...(opts.configFile ? { configFile: opts.configFile } : {}),
    dbDir,
    runDir,
    runId,
    seed,
    rejected,
    log,
  });
  for (const [k, v] of Object.entries(parts.describe)) log(`${k}: ${v}`);
  if (config.lifecycle.mode === 'explore' && config.lifecycle.annotate) {
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
      counters: {},
      durationMs: Date.now() - startedAt,
      name: config.name,
      reportFile: null,
      describe: parts.describe,
    };
  }
  try {
    const result = await runRftLoop({
      config: { ...config, seed },
      configHash,
      runDir,
      runId,
      parts,
      rejected,
      selectorStates: await SelectorStateStore.open(dbDir),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      ...(opts.resume ? { resume: true } : {}),
      ...(opts.stopAfter !== undefined ? { stopAfter: opts.stopAfter } : {}),
      ...(opts.onStep ? { onStep: opts.onStep } : {}),
      log,
    });
    const faults = parts.faults ? { ...parts.faults } : undefined;
    let reportFile: string | null = null;
    if (config.report.html) {
      reportFile = join(runDir, 'report.html');
      writeFileSync(
        reportFile,
        renderReport({
          name: config.name,
          runId,
          config,
          history: result.history,
          ...(result.initialAccuracy !== undefined ? { initialAccuracy: result.initialAccuracy } : {}),
          ...(result.finalAccuracy !== undefined ? { finalAccuracy: result.finalAccuracy } : {}),
          describe: parts.describe,
          counters: { ...result.counters, ...(faults ?? {}) },
          durationMs: result.durationMs,
        }),
      );
    }
    const report: RftReport = {
      ...result,
      name: config.name,
      reportFile,
      describe: parts.describe,
      ...(faults ? { faults } : {}),
    };
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...report, history: undefined }, null, 2));
    const finished = result.steps >= config.lifecycle.steps;
    await recorder.mark(finished ? 'completed' : 'running', 0, {
      steps: result.steps,
      initialAccuracy: result.initialAccuracy,
      finalAccuracy: result.finalAccuracy,
      counters: result.counters,
      faults,
    });
    return report;
  } catch (err) {
    await recorder.mark('failed', 0, { error: String(err) }).catch(() => undefined);
    throw err;
  } finally {
    await parts.buffer.close().catch(() => undefined);
    parts.dispose?.();
  }
}

/**
 * A run started without --resume starts over: its own buffer table (and use journal) and its
 * checkpoints and rejected rows from an earlier run of the same config are removed — and the log
 * says so. `train`
 * mode never does this: it exists to read a buffer collected before.
 */
async function startFresh(
  config: RftConfig,
  dbDir: string,
  runDir: string,
  runId: string,
  log: (line: string) => void,
): Promise<void> {
  const table = typeof config.buffer.table === 'string' ? config.buffer.table : 'experiences';
  const conn = await connect(dbDir);
  const names = await conn.tableNames();
  if (names.includes(table)) {
    // Only ever drop an experience table: a buffer.table naming another table (tasks, rejected…) is a config error.
    const fields = (await (await conn.openTable(table)).schema()).fields.map((f) => f.name);
    if (!fields.includes('group_id') || !fields.includes('explore_step')) {
      throw new ConfigError({
        path: 'buffer.table',
        message: `table '${table}' exists and is not an experience table; name a table of its own for the buffer`,
      });
    }
  }
  for (const name of [table, `${table}_uses`]) {
    if (!names.includes(name)) continue;
    const rows = await (await conn.openTable(name)).countRows();
    await conn.dropTable(name);
    log(`starting over (no --resume): dropped buffer table '${name}' (${rows} rows) left by an earlier run`);
  }
  // Run ids are deterministic (name, config, seed): the earlier run's rejections would mix with ours.
  await (await RejectedStore.open(dbDir)).deleteRun(runId);
  for (const leftover of ['checkpoints', 'holdback.jsonl']) {
    const path = join(runDir, leftover);
    if (existsSync(path)) {
      rmSync(path, { recursive: true, force: true });
      log(`starting over (no --resume): removed ${path}`);
    }
  }
}
