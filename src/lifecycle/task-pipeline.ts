import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as arrow from 'apache-arrow';
import { isDatabaseUri, refuseFileAsDatabase } from '../buffer/connection.ts';
import { RunTable } from '../buffer/run-table.ts';
import { runTag } from '../buffer/task-store.ts';
import { parseConfig, readYamlFile } from '../core/config.ts';
import { errorMessage, StrictModeError } from '../core/errors.ts';
import { contentHash, stableStringify } from '../core/ids.ts';
import { resolveDbDir, resolveRunsDir } from '../core/places.ts';
import type { Registry } from '../core/registry.ts';
import { type RejectedInput, rejectedPayload } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import { compileMapping } from '../io/mapping.ts';
import { OperatorGraph } from '../operators/graph.ts';
import { buildGraph } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { countReason as count, emptyMetrics } from '../operators/step-metrics.ts';
import { planRowWise } from '../pipeline-workers/row-wise-plan.ts';
import type { FileLease } from './file-lease.ts';
import { Hooks } from './hooks.ts';
import { RowsEstimate } from './rows-estimate.ts';
import { withRunResources } from './run-resources.ts';
import { tokenBudgetOf, usageOf } from './run-usage.ts';
import { type TaskPipelineConfig, taskPipelineConfigSchema } from './task-pipeline-config.ts';
import { chainChecksIds, LandedIds } from './task-pipeline-ids.ts';
import { checkInputs, checkMappingAgainstInputs, precheckInputs } from './task-pipeline-inputs.ts';
import { rejectionVerdict } from './task-pipeline-quality.ts';
import { describeOutcome, endFailedIngest, failedIngestError } from './task-pipeline-rollback.ts';
import { openRowWiseStage } from './task-pipeline-row-stage.ts';
import { type StreamContext, streamInputs } from './task-pipeline-stream.ts';
import { openIngestTables, takeTaskTableLease } from './task-pipeline-tables.ts';
import type {
  RunTaskPipelineOptions,
  TaskPipelineEvents,
  TaskPipelineReport,
} from './task-pipeline-types.ts';
import { TaskCommitter } from './task-pipeline-writer.ts';
import { type LandedMeasures, TaskReportCollector } from './task-report/collector.ts';
import { writeTaskReport } from './task-report/write.ts';

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

async function runTaskPipelineLeased(
  config: TaskPipelineConfig,
  opts: RunTaskPipelineOptions,
  held: { lease?: FileLease | undefined },
): Promise<TaskPipelineReport> {
  const t0 = performance.now();
  const seed = opts.seed ?? config.seed;
  const dbDir = resolveDbDir({ flag: opts.dbDir, configValue: config.db, configDir: opts.baseDir });
  const runsDir = resolveRunsDir({
    flag: opts.runsDir,
    configValue: config.runsDir,
    configDir: opts.baseDir,
  });
  const reportData = new TaskReportCollector();
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

  // Validate, then act: inputs and the operator graph are checked before any table is opened.
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

  opts.onStart?.({ runId, dbDir, runsDir });
  // One owner per table whatever the mode: the file lease on a local database, and under --queue
  // the coordinator's Redis lease before it (a refusal there leaves no lease file behind).
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
  const { store, rejectedStore, recorder, startVersion, appendOnly } = await openIngestTables(
    dbDir,
    { tasks: config.output.table, rejected: config.output.rejectedTable },
    { runId, kind: 'tasks', name: config.name, configHash, seed },
  );

  const readStep = emptyMetrics('read', 'read', 'read');
  const mapStep = emptyMetrics('map', 'map', 'map');
  const hookStep = emptyMetrics('hooks', 'hooks', 'hook');
  const writeStep = emptyMetrics('write', 'write', 'write');

  let rejectedCount = 0;
  let tasksOut = 0;
  // Null when the chain's last step, exact_dedup, has already dropped every repeated id.
  const seenIds =
    !opts.inputStream && hooks.count('afterTaskOps') === 0 && chainChecksIds(config.operators, opts.registry)
      ? null
      : new LandedIds();
  const writer = new TaskCommitter({
    store,
    rejectedStore,
    runId,
    appendOnly,
    commitRows: config.output.commitRows,
    writeStep,
    hooks,
  });

  const reject = (r: RejectedInput) => {
    reportData.rejected([r]);
    rejectedStore.add([{ runId, ...r }]);
    rejectedCount++;
  };
  const rejectTask = (step: string, task: Task, reason: string) =>
    reject({
      step,
      reason,
      file: task.source?.file ?? '',
      row: task.source?.row ?? -1,
      rowId: task.id,
      payload: rejectedPayload(task),
    });

  const land = async (tasks: Task[]) => {
    const after = await hooks.emit('afterTaskOps', { runId, rows: tasks });
    for (const r of after.rejected) {
      count(hookStep, r.reason);
      rejectTask(r.step, r.row as Task, r.reason);
    }
    hookStep.rowsIn += tasks.length;
    hookStep.rowsOut += after.payload.rows.length;
    writeStep.rowsIn += after.payload.rows.length;
    for (const task of after.payload.rows) {
      const repeat = seenIds?.add(task);
      if (repeat !== undefined) {
        const first = repeat.first;
        const reason = `duplicate id ${task.id} (first written from ${first ? `${first.file}:${first.row}` : 'a generated row'})`;
        count(writeStep, reason);
        rejectTask('write', task, reason);
        continue;
      }
      reportData.landed([task]);
      writer.push(task);
      tasksOut++;
      writeStep.rowsOut++;
    }
    await writer.maybeCommit();
  };
  // The same accounting as `land` for rows a pipeline worker encoded (no hook can see them: none is registered).
  const landEncoded = async (rows: arrow.Table, measures: LandedMeasures | null, kept: readonly number[]) => {
    hookStep.rowsIn += rows.numRows;
    hookStep.rowsOut += rows.numRows;
    writeStep.rowsIn += rows.numRows;
    writeStep.rowsOut += rows.numRows;
    tasksOut += rows.numRows;
    // Null only for a run that writes no report (output.report: false), which reads none of it.
    if (measures) reportData.landedMeasured(measures, kept);
    writer.pushEncoded(rows);
    await writer.maybeCommit();
  };

  const strictError = (n: number) =>
    new StrictModeError(
      `${n} input row(s) could not be read or mapped (strict mode): nothing was landed; see: winnow inspect --db ${dbDir} --table ${config.output.rejectedTable} --run ${runId}`,
    );

  const { rowSteps, stage } = await openRowWiseStage({
    nodes,
    plan,
    graphOptions,
    config,
    registry: opts.registry,
    mapping,
    seed,
    runId,
    baseDir: opts.baseDir,
    warn,
  });

  try {
    if (opts.strict) {
      // Check every input row before writing any: a strict run that would fail must not land a
      // single commit, even if the process is killed before it could roll back.
      const bad = await precheckInputs(files, config, mapping, (r) => reject(r));
      if (bad > 0) {
        await rejectedStore.flush();
        throw strictError(bad);
      }
    }
    const streamContext: StreamContext = {
      runId,
      files,
      config,
      mapping,
      hooks,
      stage,
      graph,
      steps: { read: readStep, map: mapStep, hooks: hookStep },
      reject,
      rejectTask,
      land,
      ...(hooks.count('afterTaskOps') === 0 && store.encoder(runId, 1) ? { landEncoded } : {}),
      warn,
      rowsEstimate,
      afterBatch: (file, read) =>
        opts.onProgress?.({
          file,
          rowsRead: read,
          tasksOut,
          rejected: rejectedCount,
          elapsedMs: performance.now() - t0,
        }),
    };
    const streamed: Awaited<ReturnType<NonNullable<RunTaskPipelineOptions['inputStream']>>> = opts.inputStream
      ? await opts.inputStream(streamContext, {
          seed,
          dbDir,
          baseDir: opts.baseDir,
          ...(opts.configFile ? { configFile: opts.configFile } : {}),
        })
      : await streamInputs(streamContext);
    const { rowsRead, inputErrors } = streamed;
    // The workers' part is done: free their threads and memory before the last commits.
    const workersUsed = stage.workers;
    await stage.close();
    const tail = await graph.flush();
    for (const r of tail.rejected) rejectTask(r.step, r.row, r.reason);
    if (tail.rows.length > 0) await land(tail.rows);
    const steps = [
      readStep,
      mapStep,
      // Row-wise steps that ran in pipeline workers (--queue) report their counts with the stream.
      ...(streamed.rowSteps ?? stage.metrics()),
      ...(streamed.tailSteps ?? graph.metrics()),
      ...(hooks.count('afterIngest') + hooks.count('afterTaskOps') > 0 ? [hookStep] : []),
      writeStep,
    ];
    // Decided before the last commit: a run that fits in one commit (output.commitRows) never
    // touches the task table when it fails; a longer one is rolled back below.
    const verdict = rejectionVerdict({
      runId,
      dbDir,
      rejectedTable: config.output.rejectedTable,
      rowsRead,
      inputErrors,
      tasksOut,
      maxRejectedShare: config.output.maxRejectedShare,
      steps,
    });
    if (verdict) {
      await writer.abandon();
      throw verdict; // the task table is rolled back below; the rejected rows are kept
    }
    await writer.commit(true);
    await rejectedStore.flush();

    // A strict run lands all or nothing: the task table is rolled back below.
    if (opts.strict && inputErrors > 0) throw strictError(inputErrors);
    // The tasks have landed: now the dedup index may record them (decontaminate's `index`).
    await resources.land();

    if (config.output.compact && writer.totals.inserted + writer.totals.updated > 0)
      await store.compact(undefined, startVersion);
    const tableVersion = await store.tagRun(runId);
    const report: TaskPipelineReport = {
      runId,
      name: config.name,
      dbDir,
      table: config.output.table,
      files,
      seed,
      rowsRead,
      inputErrors,
      rejected: rejectedCount,
      tasksOut,
      ...writer.totals,
      tableVersion,
      tag: runTag(runId),
      totalTasks: await store.count(),
      steps,
      workers: workersUsed,
      engineSteps: rowSteps.engineSteps,
      durationMs: performance.now() - t0,
      warnings,
      reportFile: null,
    };
    if (config.output.report) report.reportFile = writeTaskReport(report, reportData, config, runsDir);
    const usage = usageOf(steps);
    const tokens = tokenBudgetOf(steps);
    await recorder.mark('completed', tableVersion, {
      rowsRead,
      inputErrors,
      rejected: rejectedCount,
      tasksOut,
      ...writer.totals,
      files,
      ...(usage ? { usage } : {}),
      ...(Object.keys(tokens).length > 0 ? { tokens } : {}),
    });
    return report;
  } catch (err) {
    await writer.settle();
    const table = config.output.table;
    const outcome = await endFailedIngest({
      store,
      table,
      rejectedStore,
      runId,
      startVersion,
      keepPartial: opts.keepPartial === true,
      error: err,
    });
    const failure = failedIngestError(err, { dbDir, table, outcome: describeOutcome(runId, outcome) });
    const version = await store.version().catch(() => startVersion);
    await recorder
      .mark('failed', version, { error: errorMessage(failure), outcome, ...writer.totals })
      .catch(() => undefined);
    await hooks.emit('onError', { runId, error: err as Error }).catch(() => undefined);
    throw failure;
  } finally {
    await stage.close();
    rowSteps.close();
  }
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
