import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../../core/config.ts';
import { contentHash, stableStringify } from '../../core/ids.ts';
import { resolveDbDir, resolveRunsDir } from '../../core/places.ts';
import type { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import { readYamlFile } from '../../core/yaml-file.ts';
import { compileMapping } from '../../io/mapping.ts';
import { OperatorGraph } from '../../operators/graph.ts';
import { buildGraph } from '../../operators/graph-spec.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import { planRowWise } from '../../pipeline-workers/row-wise-plan.ts';
import { isDatabaseUri, refuseFileAsDatabase } from '../../store/connection.ts';
import { RunTable } from '../../store/run-table.ts';
import type { FileLease } from '../file-lease.ts';
import { Hooks } from '../hooks.ts';
import { withRunResources } from '../run/run-resources.ts';
import { TaskReportCollector } from './report/collector.ts';
import { RowsEstimate } from './rows-estimate.ts';
import { type TaskPipelineConfig, taskPipelineConfigSchema } from './task-pipeline-config.ts';
import {
  failRun,
  finishRun,
  type LiveRun,
  type RunNames,
  type Streamed,
  strictError,
} from './task-pipeline-finish.ts';
import { chainChecksIds, LandedIds } from './task-pipeline-ids.ts';
import { checkInputs, checkMappingAgainstInputs, precheckInputs } from './task-pipeline-inputs.ts';
import { TaskLanding } from './task-pipeline-landing.ts';
import { openRowWiseStage } from './task-pipeline-row-stage.ts';
import { type StreamContext, streamInputs } from './task-pipeline-stream.ts';
import { openIngestTables, takeTaskTableLease } from './task-pipeline-tables.ts';
import type {
  RunTaskPipelineOptions,
  TaskPipelineEvents,
  TaskPipelineReport,
} from './task-pipeline-types.ts';
import { TaskCommitter } from './task-pipeline-writer.ts';

export type {
  RunTaskPipelineOptions,
  TaskPipelineEvents,
  TaskPipelineProgress,
  TaskPipelineReport,
} from './task-pipeline-types.ts';

/** Read and validate a pipeline file in one pass (operator params included: `registry` types them). */
export async function loadTaskPipeline(
  file: string,
  registry?: Registry<OperatorDefinition<Task, unknown>>,
): Promise<TaskPipelineConfig> {
  return parseConfig(taskPipelineConfigSchema(registry), readYamlFile(file), { file: resolve(file) });
}

/**
 * Run a task-set pipeline end to end. Before its first write it takes a lease on the run and its
 * task table (a file lease on a local database; under --queue `beforeWrite` takes Redis's too).
 */
export async function runTaskPipeline(
  config: TaskPipelineConfig,
  opts: RunTaskPipelineOptions,
): Promise<TaskPipelineReport> {
  const held: { lease?: FileLease | undefined } = {};
  try {
    return await runTaskPipelineLeased(config, opts, held);
  } finally {
    held.lease?.releaseSync();
  }
}

async function nameRun(config: TaskPipelineConfig, opts: RunTaskPipelineOptions): Promise<RunNames> {
  const t0 = performance.now();
  const seed = opts.seed ?? config.seed;
  const dbDir = resolveDbDir({ flag: opts.dbDir, configValue: config.db, configDir: opts.baseDir });
  const runsDir = resolveRunsDir({
    flag: opts.runsDir,
    configValue: config.runsDir,
    configDir: opts.baseDir,
  });
  const files = (Array.isArray(config.input.path) ? config.input.path : [config.input.path]).map((p) =>
    resolve(opts.baseDir, p),
  );
  const configHash = contentHash(stableStringify(config));
  // Unique among this database's runs (the runs table, the run tag): two runs in one millisecond
  // get -2, -3… instead of one overwriting the other's record.
  const stamp = new Date().toISOString().replace(/[-:.]/g, '').replace('Z', '');
  const base = `${stamp}-${configHash.slice(0, 8)}-${seed}`;
  const taken = new Set((await RunTable.readAll(dbDir)).map((r) => r.runId));
  let runId = base;
  for (let k = 2; taken.has(runId); k++) runId = `${base}-${k}`;
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    opts.onWarn?.(m);
  };
  return { t0, seed, dbDir, runsDir, files, configHash, runId, warnings, warn };
}

/** Validate, then act: inputs, the operator graph and the mapping, checked before any table is opened. */
async function checkAndBuild(config: TaskPipelineConfig, opts: RunTaskPipelineOptions, n: RunNames) {
  const { dbDir, files, seed, runId, warn } = n;
  if (!isDatabaseUri(dbDir)) refuseFileAsDatabase(dbDir);
  checkInputs(files, config, opts.configFile);
  const resources = withRunResources(opts.registry, { dbDir, baseDir: opts.baseDir });
  const nodes = await buildGraph<Task>(config.operators, {
    registry: resources.registry,
    baseDir: opts.baseDir,
    path: 'operators',
    ...(opts.configFile ? { file: opts.configFile } : {}),
  });
  // The leading row-wise steps may run on worker threads; the rest (dedups, augmenters, user
  // modules…) run here, in order. Step names and seeded streams do not depend on the split.
  const plan = planRowWise(config.operators, opts.registry);
  const rowsEstimate = new RowsEstimate();
  const graphOptions = {
    seed,
    runId,
    baseDir: opts.baseDir,
    onWarn: (step: string, m: string) => warn(`${step}: ${m}`),
    expectedRows: () => rowsEstimate.expected,
  };
  const graph = new OperatorGraph<Task>(nodes.slice(plan.workerSteps.length), graphOptions);
  const mapping = compileMapping(config.mapping);
  await checkMappingAgainstInputs(files, config, mapping, opts.configFile);
  await RunTable.checkSeedIn(dbDir, seed);
  const hooks = opts.hooks ?? new Hooks<TaskPipelineEvents>();
  return { resources, nodes, plan, rowsEstimate, graphOptions, graph, mapping, hooks };
}

/**
 * One owner per table whatever the mode: the file lease on a local database, and under --queue
 * the coordinator's Redis lease before it (a refusal there leaves no lease file behind). Then the
 * task, rejected and runs tables are opened.
 */
async function leaseAndOpen(
  config: TaskPipelineConfig,
  opts: RunTaskPipelineOptions,
  n: RunNames,
  held: { lease?: FileLease | undefined },
) {
  const { runId, dbDir } = n;
  const takeFileLease = () => {
    held.lease = takeTaskTableLease(
      dbDir,
      runId,
      config.output.table,
      opts.beforeWrite ? 'winnow run --queue' : 'winnow run',
    );
  };
  if (opts.beforeWrite)
    await opts.beforeWrite({ runId, dbDir, table: config.output.table, onLeased: takeFileLease });
  else takeFileLease();
  return openIngestTables(
    dbDir,
    { tasks: config.output.table, rejected: config.output.rejectedTable },
    { runId, kind: 'tasks', name: config.name, configHash: n.configHash, seed: n.seed },
  );
}

type Built = Awaited<ReturnType<typeof checkAndBuild>>;

async function runTaskPipelineLeased(
  config: TaskPipelineConfig,
  opts: RunTaskPipelineOptions,
  held: { lease?: FileLease | undefined },
): Promise<TaskPipelineReport> {
  const n = await nameRun(config, opts);
  const built = await checkAndBuild(config, opts, n);
  opts.onStart?.({ runId: n.runId, dbDir: n.dbDir, runsDir: n.runsDir });
  const opened = await leaseAndOpen(config, opts, n, held);
  const { hooks } = built;
  const reportData = new TaskReportCollector();
  const landing = new TaskLanding({
    runId: n.runId,
    rejectedStore: opened.rejectedStore,
    reportData,
    hooks,
    // Null when the chain's last step, exact_dedup, has already dropped every repeated id.
    seenIds:
      !opts.inputStream &&
      hooks.count('afterTaskOps') === 0 &&
      chainChecksIds(config.operators, opts.registry)
        ? null
        : new LandedIds(),
  });
  const writer = new TaskCommitter({
    store: opened.store,
    rejectedStore: opened.rejectedStore,
    runId: n.runId,
    appendOnly: opened.appendOnly,
    commitRows: config.output.commitRows,
    writeStep: landing.writeStep,
    hooks,
  });
  landing.writer = writer;
  const { rowSteps, stage } = await openRowWiseStage({
    nodes: built.nodes,
    plan: built.plan,
    graphOptions: built.graphOptions,
    config,
    registry: opts.registry,
    mapping: built.mapping,
    seed: n.seed,
    runId: n.runId,
    baseDir: opts.baseDir,
    warn: n.warn,
  });
  const run: LiveRun<Built> = { config, opts, n, built, opened, landing, writer, reportData, stage };
  try {
    const streamed = await streamRun(run);
    return await finishRun(run, streamed, rowSteps.engineSteps);
  } catch (err) {
    throw await failRun(run, err);
  } finally {
    await stage.close();
    rowSteps.close();
  }
}

/** Read, map and run every row through the chain to the writer; the report's steps with the counts. */
async function streamRun(r: LiveRun<Built>): Promise<Streamed> {
  const { config, opts, n, built, landing, stage } = r;
  if (opts.strict) {
    // Check every input row before writing any: a strict run that would fail must not land a
    // single commit, even if the process is killed before it could roll back.
    const bad = await precheckInputs(n.files, config, built.mapping, (x) => landing.reject(x));
    if (bad > 0) {
      await r.opened.rejectedStore.flush();
      throw strictError(r, bad);
    }
  }
  const streamContext: StreamContext = {
    runId: n.runId,
    files: n.files,
    config,
    mapping: built.mapping,
    hooks: built.hooks,
    stage,
    graph: built.graph,
    steps: { read: landing.readStep, map: landing.mapStep, hooks: landing.hookStep },
    reject: landing.reject,
    rejectTask: landing.rejectTask,
    land: landing.land,
    ...(built.hooks.count('afterTaskOps') === 0 && r.opened.store.encoder(n.runId, 1)
      ? {
          landEncoded: landing.landEncoded,
          ...(landing.checksIds ? { admitEncoded: landing.admitEncoded } : {}),
        }
      : {}),
    warn: n.warn,
    rowsEstimate: built.rowsEstimate,
    afterBatch: (file, read) =>
      opts.onProgress?.({
        file,
        rowsRead: read,
        tasksOut: landing.tasksOut,
        rejected: landing.rejectedCount,
        elapsedMs: performance.now() - n.t0,
      }),
  };
  const streamed: Awaited<ReturnType<NonNullable<RunTaskPipelineOptions['inputStream']>>> = opts.inputStream
    ? await opts.inputStream(streamContext, {
        seed: n.seed,
        dbDir: n.dbDir,
        baseDir: opts.baseDir,
        ...(opts.configFile ? { configFile: opts.configFile } : {}),
      })
    : await streamInputs(streamContext);
  // The workers' part is done: free their threads and memory before the last commits.
  const workersUsed = stage.workers;
  const workerCpuSecs = stage.workerCpuSecs();
  await stage.close();
  const tail = await built.graph.flush();
  for (const x of tail.rejected) landing.rejectTask(x.step, x.row, x.reason);
  if (tail.rows.length > 0) await landing.land(tail.rows);
  const hooks = built.hooks;
  const steps = landing.steps(
    // Row-wise steps that ran in pipeline workers (--queue) report their counts with the stream.
    [...(streamed.rowSteps ?? stage.metrics()), ...(streamed.tailSteps ?? built.graph.metrics())],
    hooks.count('afterIngest') + hooks.count('afterTaskOps') > 0,
  );
  return {
    rowsRead: streamed.rowsRead,
    inputErrors: streamed.inputErrors,
    workersUsed,
    workerCpuSecs,
    steps,
  };
}

/** Load a pipeline file and run it, resolving relative paths against the file's folder. */
export async function runTaskPipelineFile(
  file: string,
  opts: Omit<RunTaskPipelineOptions, 'baseDir' | 'configFile'>,
): Promise<TaskPipelineReport> {
  const abs = resolve(file);
  const config = await loadTaskPipeline(abs, opts.registry);
  return runTaskPipeline(config, { ...opts, baseDir: dirname(abs), configFile: abs });
}
