import { performance } from 'node:perf_hooks';
import { errorMessage, StrictModeError } from '../../core/errors.ts';
import type { StepMetrics } from '../../operators/step-metrics.ts';
import { runTag } from '../../store/task-store.ts';
import type { Hooks } from '../hooks.ts';
import { tokenBudgetOf, usageOf } from '../run/run-usage.ts';
import type { TaskReportCollector } from './report/collector.ts';
import { writeTaskReport } from './report/write.ts';
import type { TaskPipelineConfig } from './task-pipeline-config.ts';
import type { TaskLanding } from './task-pipeline-landing.ts';
import { rejectionVerdict } from './task-pipeline-quality.ts';
import { describeOutcome, endFailedIngest, failedIngestError } from './task-pipeline-rollback.ts';
import type { openRowWiseStage } from './task-pipeline-row-stage.ts';
import type { openIngestTables } from './task-pipeline-tables.ts';
import type {
  RunTaskPipelineOptions,
  TaskPipelineEvents,
  TaskPipelineReport,
} from './task-pipeline-types.ts';
import type { TaskCommitter } from './task-pipeline-writer.ts';

// The end of a task-pipeline run (task-pipeline.ts): its last commit and record on success, its
// rollback and record on failure.

/** What a run is called and where it writes. */
export interface RunNames {
  t0: number;
  seed: number;
  dbDir: string;
  runsDir: string;
  files: string[];
  configHash: string;
  runId: string;
  warnings: string[];
  warn: (m: string) => void;
}

/** What the end of a run needs of the checked parts (task-pipeline.ts's checkAndBuild has more). */
export interface RunParts {
  resources: { land(): Promise<void> };
  hooks: Hooks<TaskPipelineEvents>;
}

/** What streaming the inputs yields. */
export interface Streamed {
  rowsRead: number;
  inputErrors: number;
  workersUsed: number | undefined;
  /** Per worker thread, its CPU seconds (empty without workers). */
  workerCpuSecs?: number[];
  steps: StepMetrics[];
}

/** Everything a run holds once its tables are open. */
export interface LiveRun<B extends RunParts = RunParts> {
  config: TaskPipelineConfig;
  opts: RunTaskPipelineOptions;
  n: RunNames;
  built: B;
  opened: Awaited<ReturnType<typeof openIngestTables>>;
  landing: TaskLanding;
  writer: TaskCommitter;
  reportData: TaskReportCollector;
  stage: Awaited<ReturnType<typeof openRowWiseStage>>['stage'];
}

export const strictError = (r: LiveRun, n: number) =>
  new StrictModeError(
    `${n} input row(s) could not be read or mapped (strict mode): nothing was landed; see: winnow inspect --db ${r.n.dbDir} --table ${r.config.output.rejectedTable} --run ${r.n.runId}`,
  );

/** The last commit, the run's tag, report and record, once every row has landed. */
export async function finishRun(
  r: LiveRun,
  s: Streamed,
  engineSteps: TaskPipelineReport['engineSteps'],
): Promise<TaskPipelineReport> {
  const { config, opts, n, landing, writer } = r;
  const { store, rejectedStore, recorder, startVersion } = r.opened;
  const { rowsRead, inputErrors, steps } = s;
  const tasksOut = landing.tasksOut;
  // Decided before the last commit: a run that fits in one commit (output.commitRows) never
  // touches the task table when it fails; a longer one is rolled back below.
  const verdict = rejectionVerdict({
    runId: n.runId,
    dbDir: n.dbDir,
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
  if (opts.strict && inputErrors > 0) throw strictError(r, inputErrors);
  // The tasks have landed: now the dedup index may record them (decontaminate's `index`).
  await r.built.resources.land();
  if (config.output.compact && writer.totals.inserted + writer.totals.updated > 0)
    await store.compact(undefined, startVersion);
  const tableVersion = await store.tagRun(n.runId);
  const counts = { rowsRead, inputErrors, rejected: landing.rejectedCount, tasksOut, ...writer.totals };
  const report: TaskPipelineReport = {
    runId: n.runId,
    name: config.name,
    dbDir: n.dbDir,
    table: config.output.table,
    files: n.files,
    seed: n.seed,
    ...counts,
    tableVersion,
    tag: runTag(n.runId),
    totalTasks: await store.count(),
    steps,
    workers: s.workersUsed,
    ...(s.workerCpuSecs && s.workerCpuSecs.length > 0 ? { workerCpuSecs: s.workerCpuSecs } : {}),
    engineSteps,
    durationMs: performance.now() - n.t0,
    warnings: n.warnings,
    reportFile: null,
  };
  if (config.output.report) report.reportFile = writeTaskReport(report, r.reportData, config, n.runsDir);
  const usage = usageOf(steps);
  const tokens = tokenBudgetOf(steps);
  await recorder.mark('completed', tableVersion, {
    ...counts,
    files: n.files,
    ...(usage ? { usage } : {}),
    ...(Object.keys(tokens).length > 0 ? { tokens } : {}),
  });
  return report;
}

/** A failed run: its writes rolled back (or kept with keepPartial), recorded, hooks told; the error to throw. */
export async function failRun(r: LiveRun, err: unknown): Promise<unknown> {
  const { writer, n, config } = r;
  const { store, rejectedStore, recorder, startVersion } = r.opened;
  await writer.settle();
  const table = config.output.table;
  const outcome = await endFailedIngest({
    store,
    table,
    rejectedStore,
    runId: n.runId,
    startVersion,
    keepPartial: r.opts.keepPartial === true,
    error: err,
  });
  const failure = failedIngestError(err, {
    dbDir: n.dbDir,
    table,
    outcome: describeOutcome(n.runId, outcome),
  });
  const version = await store.version().catch(() => startVersion);
  await recorder
    .mark('failed', version, { error: errorMessage(failure), outcome, ...writer.totals })
    .catch(() => undefined);
  await r.built.hooks.emit('onError', { runId: n.runId, error: err as Error }).catch(() => undefined);
  return failure;
}
