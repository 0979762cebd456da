import type { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import type { StepMetrics } from '../../operators/step-metrics.ts';
import type { Hooks } from '../hooks.ts';
import type { StreamContext } from './task-pipeline-stream.ts';

/** Checkpoints of a task pipeline run. Events with `rows` can be transformed or vetoed by hooks. */
export interface TaskPipelineEvents {
  /** Raw records of one batch mapped to tasks, before any operator. */
  afterIngest: { runId: string; file: string; rows: Task[] };
  /** One batch after the operator graph, before it is written. */
  afterTaskOps: { runId: string; rows: Task[] };
  /** After each LanceDB commit of tasks. */
  afterTaskWrite: { runId: string; written: number; inserted: number; updated: number; version: number };
  onError: { runId: string; error: Error };
}

export interface TaskPipelineProgress {
  file: string;
  rowsRead: number;
  tasksOut: number;
  rejected: number;
  elapsedMs: number;
}

export interface RunTaskPipelineOptions {
  /** Folder relative paths in the config resolve against (the config file's folder). */
  baseDir: string;
  configFile?: string;
  dbDir?: string;
  /** Folder for the run's report folder (default: the config's runsDir, then .winnow/runs in the project). */
  runsDir?: string;
  seed?: number;
  /**
   * Fail (and land nothing) when any input row could not be read or mapped. Without it a run still
   * fails (exit 3, nothing landed) when it rejects every row or more than `output.maxRejectedShare`.
   */
  strict?: boolean;
  /**
   * On failure, keep the tasks committed before it (each marked by its run_id; the run record
   * counts them) instead of rolling the task table back to the version the run started from.
   * Strict and data-quality failures always roll back.
   */
  keepPartial?: boolean;
  registry: Registry<OperatorDefinition<Task, unknown>>;
  hooks?: Hooks<TaskPipelineEvents>;
  onProgress?: (p: TaskPipelineProgress) => void;
  onWarn?: (message: string) => void;
  /** Called once the run is validated, before it writes: where it writes (absolute paths). */
  onStart?: (where: { runId: string; dbDir: string; runsDir: string }) => void;
  /** Awaited after `onStart`, before the first write; a throw stops the run with nothing written (the --queue lease). */
  beforeWrite?: (where: {
    runId: string;
    dbDir: string;
    table: string;
    /** Called once the queue's lease is held: the file lease; if it throws, the queue's lease is given back. */
    onLeased: () => void;
  }) => Promise<void>;
  /**
   * Replaces the in-process read → map → row-wise steps → land loop (`winnow run --queue`: shards
   * go to pipeline workers, src/scale/pipeline-coordinator.ts). It must land rows in input order.
   */
  inputStream?: (
    c: StreamContext,
    run: PipelineRunInfo,
  ) => Promise<{
    rowsRead: number;
    inputErrors: number;
    rowSteps?: StepMetrics[];
    /** The counts of the steps after the row-wise ones, when the stream ran them itself (rows landed encoded). */
    tailSteps?: StepMetrics[];
  }>;
}

/** What a replacement input stream needs besides the stream context: the run's seed and paths. */
export interface PipelineRunInfo {
  seed: number;
  dbDir: string;
  baseDir: string;
  configFile?: string;
}

export interface TaskPipelineReport {
  runId: string;
  name: string;
  dbDir: string;
  table: string;
  files: string[];
  seed: number;
  rowsRead: number;
  /** Rows that could not be read or mapped (input errors; `--strict` fails on these). */
  inputErrors: number;
  /** All rows recorded in `rejected` by this run (input errors, operator drops, hook vetoes, duplicate ids). */
  rejected: number;
  tasksOut: number;
  inserted: number;
  updated: number;
  unchanged: number;
  tableVersion: number;
  tag: string;
  totalTasks: number;
  steps: StepMetrics[];
  /** Worker threads that ran the row-wise steps (0: all on the main thread; see `workers`). */
  workers?: number;
  /** Per worker thread that ran batches, its CPU seconds (its own thread; benchmarks report it). */
  workerCpuSecs?: number[];
  /** Leading steps that ran in the column-wise engine (`engine`; 0 or absent: every step ran row by row). */
  engineSteps?: number;
  durationMs: number;
  warnings: string[];
  /** `<runsDir>/<runId>/report.html`, or null with `output.report: false`. */
  reportFile: string | null;
}
