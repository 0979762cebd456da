import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { RejectedInput } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import { threadCpuMicros } from '../core/thread-cpu.ts';
import { jsonlChunking } from '../io/jsonl-chunks.ts';
import { mapRecords } from '../io/map-records.ts';
import type { CompiledMapping } from '../io/mapping.ts';
import type { RawRecord } from '../io/raw-record.ts';
import type { OperatorGraph, StepRejection } from '../operators/graph.ts';
import { addStepCounts, type StepMetrics } from '../operators/step-metrics.ts';
import { ExactDedupKeyer, prepareExactKey } from '../operators/task/exact-dedup-prepared.ts';
import { presign } from '../operators/task/near-dedup-signer.ts';
import { readText } from '../operators/task/text-fields.ts';
import { keptProfile } from '../operators/task/text-profile.ts';
import type { ChainJob, ChainReply, ChainSetup } from './chain-messages.ts';
import { type EncodedChunk, encodeChunk } from './encoded-chunk.ts';
import { unpackChunk } from './jsonl-chunk-pack.ts';
import { type ChunkJob, type ChunkRows, chunkRows, shiftChunkRows } from './jsonl-chunk-rows.ts';
import { FastChunkReader } from './jsonl-fast-rows.ts';
import { OrderedPool } from './ordered-pool.ts';
import { applyTextReply, toTextJob } from './text-job.ts';

/** Encoded chunks: the main thread runs a chunk itself when every worker already holds this many 2 MiB of chunks. */
const HELP_BACKLOG = 2;

/** JSONL chunks (jsonlChunking.bytes) in 2 MiB, the chunk size the windows were tuned on. */
function chunksPer2MiB(): number {
  return Math.max(1, Math.round((2 << 20) / jsonlChunking.bytes));
}

/** One batch after mapping and the row-wise steps, wherever they ran. */
export interface StagedBatch {
  tasks: Task[];
  mapRejected: RejectedInput[];
  mapMs: number;
  rejected: StepRejection<Task>[];
  warnings: Array<{ step: string; message: string }>;
}

/**
 * `workers: 'auto'`: one fewer than the cores, at least one. Also for a JSONL input read in chunks:
 * its main thread still unpacks, dedups, encodes and commits (~4 CPU s per 1M rows), so a worker
 * on every core made 1M rows 7.31 s against 6.85 s with one worker on 2 cores (three paired runs).
 */
export function autoWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

export interface RowStageOptions {
  /** `workers` of the config. */
  workers: number | 'auto';
  /** 'auto' starts the pool only once this many rows were read (small inputs stay on the main thread). */
  autoStartRows: number;
  /** The row-wise steps, built on the main thread (runs them until, or instead of, a pool). */
  graph: OperatorGraph<Task>;
  /** What each worker is set up with; null when nothing would run in workers. */
  setup: ChainSetup | null;
  /** Maps raw records on the main thread (workers compile their own from `setup.mapping`). */
  mapping: CompiledMapping;
  /**
   * Every worker step is text-only (row-wise-plan.ts): map here and send workers the texts alone
   * (text-job.ts) instead of whole records out and whole rows back.
   */
  textOnly?: boolean;
  onPoolStart?: (workers: number) => void;
  /**
   * The rest of the chain is exact_dedup alone and the run lands encoded rows: a JSONL chunk's rows
   * may come back in the task table's layout (encoded-chunk.ts; `measure`: with the report's
   * measures). Null: they come back as tasks.
   */
  encode?: { measure: boolean } | null;
}

/**
 * The row-wise part of a run: mapping and the leading row-wise operators, on a pool of worker
 * threads or on the main thread. `submit` returns at once; callers await results in submission
 * order, which is what keeps a run's rows, order and rejected records the same for every
 * `workers` value. Step totals are this stage's (main-thread graph + every worker's).
 */
export class RowStage {
  private pool: OrderedPool<ChainJob, ChainReply> | null = null;
  /** The pool has finished starting (or failed: then its jobs fail the run). */
  private poolReady = false;
  private readonly workerTotals = new Map<number, StepMetrics[]>();
  /** Per worker, its CPU time so far (µs), from its latest reply. */
  private readonly workerCpu = new Map<number, number>();
  private readonly opts: RowStageOptions;
  /** exact_dedup's key hashing on this thread, for chunks encoded here while the workers start. */
  private readonly keyer: ExactDedupKeyer | null;
  /** This thread's CPU time (µs) when the pool was started (`mayHelp`). */
  private mainCpuAtStart = 0;

  constructor(opts: RowStageOptions) {
    this.opts = opts;
    const params = opts.setup?.exactDedupParams;
    this.keyer = params ? new ExactDedupKeyer(params) : null;
    if (typeof opts.workers === 'number' && opts.workers > 0) this.start(opts.workers);
  }

  get workers(): number {
    return this.pool?.size ?? 0;
  }

  /** How many batches may be in flight before the caller must take the oldest result. */
  get window(): number {
    return this.pool ? this.pool.size * 2 + 1 : 1;
  }

  /**
   * `window` for JSONL chunks: as many bytes in flight as `window` chunks of 2 MiB, the size the
   * windows were tuned on. Smaller chunks (their rows die young in the worker: less memory) in a
   * window of 3 left the worker ~80 ms of queued work on dj10, less than the main thread's landing
   * and collection pauses: the same CPU took 28.8 s of wall time against 26.0 with 2 MiB chunks.
   */
  get chunkWindow(): number {
    return this.window * chunksPer2MiB();
  }

  private start(n: number): void {
    if (!this.opts.setup) return;
    const here = fileURLToPath(import.meta.url);
    // The same extension as this file: .ts from the sources, .js from the built package.
    const entry = new URL(`./chain-worker${extname(here)}`, import.meta.url);
    const pool = new OrderedPool<ChainJob, ChainReply>(n, entry, this.opts.setup);
    this.pool = pool;
    this.mainCpuAtStart = threadCpuMicros();
    // `workers: auto` runs batches here until the workers have started (their start then costs
    // the run no time); a number asks for workers outright, so every batch goes to them.
    this.poolReady = this.opts.workers !== 'auto';
    const settled = () => {
      if (this.pool === pool) this.poolReady = true;
    };
    pool.ready.then(settled, settled);
    this.opts.onPoolStart?.(n);
  }

  /** Workers are asked for and have steps (or dedup hashes) to run: a JSONL input may go to them in chunks. */
  get takesChunks(): boolean {
    return this.opts.setup !== null && this.opts.workers !== 0;
  }

  /**
   * Chunks come back encoded (`runEncodedChunk`): asked for, and the workers would not read the
   * chunks straight from their bytes instead (jsonl-fast-rows.ts: that path stays as it is).
   */
  get encodesChunks(): boolean {
    return (
      this.takesChunks &&
      !!this.opts.encode &&
      this.keyer !== null &&
      this.opts.setup?.nearDedupParams == null &&
      FastChunkReader.of(this.opts.mapping, this.opts.graph, this.keyer) === null
    );
  }

  /**
   * `runChunk` with the chunk's rows encoded in the task table's layout (`encodesChunks`), on a
   * worker once the pool has started, here until then.
   */
  async runEncodedChunk(
    job: ChunkJob,
    here = false,
  ): Promise<{ chunk: EncodedChunk; warnings: ChainReply['warnings'] }> {
    const encode = this.opts.encode!;
    const helps = (here && this.poolRunning) || this.helpsWorkers();
    if (!(this.pool && this.poolReady) || helps) {
      const rows = await chunkRows(job, this.opts.mapping, this.opts.graph);
      const o = { runId: this.opts.setup!.runId, taskset: this.opts.mapping.mapping.taskset, file: job.file };
      return {
        chunk: encodeChunk(rows, { ...o, keyer: this.keyer!, measure: encode.measure }),
        warnings: [],
      };
    }
    const reply = await this.pool.run({ jsonl: job, encode }, [job.bytes.buffer as ArrayBuffer]);
    this.note(reply);
    if (!reply.encoded) throw new Error('a pipeline worker sent a chunk back without its encoded rows');
    return { chunk: reply.encoded, warnings: reply.warnings };
  }

  /** The pool has started and takes jobs. */
  get poolRunning(): boolean {
    return this.pool !== null && this.poolReady;
  }

  /**
   * The main thread may take a chunk off the workers (work stealing, task-pipeline-stream.ts): the
   * pool runs and this thread has spent less CPU since the pool started than the busiest worker in
   * all. Stealing then evens out the threads where the workers are the bound (dj10: main 15 /
   * worker 24 CPU s without it, 20 / 20 with it) and stops once this thread is the busier one, where
   * more would only delay its landing (issue 40's file, already even).
   */
  get mayHelp(): boolean {
    if (!this.poolRunning) return false;
    let busiest = 0;
    for (const us of this.workerCpu.values()) busiest = Math.max(busiest, us);
    return threadCpuMicros() - this.mainCpuAtStart < busiest;
  }

  /**
   * The main thread runs an encoded chunk itself when every worker already holds `HELP_BACKLOG`
   * × 2 MiB of chunks. Its own share of such a run is small (landing, dedup, commits: ~2.5 of ~10 CPU s per 1M
   * rows of issue 40's file), so with `workers: auto`'s one worker on 2 cores it sat waiting for the
   * worker, the run's critical path. A second worker instead (one per core) cost 16.9–18.1 CPU s
   * against 14.7–15.3 per 1M rows (its own start, JIT and GC; 2026-11-29, shared machine): more than
   * it could win back on 2 cores. Which thread runs a chunk never changes its rows.
   */
  private helpsWorkers(): boolean {
    return this.pool !== null && this.poolReady && this.pool.leastBacklog >= HELP_BACKLOG * chunksPer2MiB();
  }

  /** Keep a worker's latest totals and CPU time. */
  private note(reply: ChainReply): void {
    this.workerTotals.set(reply.worker, reply.metrics);
    if (reply.cpuMicros !== undefined) this.workerCpu.set(reply.worker, reply.cpuMicros);
  }

  /** Per worker that ran a batch, its CPU seconds so far (its thread alone; empty without a pool). */
  workerCpuSecs(): number[] {
    return [...this.workerCpu.values()].map((us) => us / 1e6);
  }

  /** The row-wise steps' names, in chain order. */
  get stepNames(): string[] {
    return this.opts.graph.metrics().map((m) => m.step);
  }

  /** Start `n` workers now, for a chunked read (a number of `workers` has started them already). */
  startForChunks(n: number): void {
    if (!this.pool) this.start(n);
  }

  /**
   * Read, map and process one chunk of a JSONL file: on a worker once the pool has started, here
   * until then. The chunk's rows are numbered in the file once the caller knows the lines before
   * it (`rows(lineOffset)`, called in file order).
   */
  async runChunk(
    job: ChunkJob,
  ): Promise<{ rows(lineOffset: number): ChunkRows; warnings: Array<{ step: string; message: string }> }> {
    if (!(this.pool && this.poolReady)) {
      const here = await chunkRows(job, this.opts.mapping, this.opts.graph);
      return {
        rows: (lineOffset) => {
          shiftChunkRows(here, lineOffset);
          return here;
        },
        warnings: [],
      };
    }
    const reply = await this.pool.run({ jsonl: job }, [job.bytes.buffer as ArrayBuffer]);
    this.note(reply);
    return {
      rows: (lineOffset) => {
        const rows = unpackChunk(reply.chunk!, job.file, lineOffset);
        this.prepare(rows.tasks, reply);
        return rows;
      },
      warnings: reply.warnings,
    };
  }

  /** Hand one batch of raw records (or tasks mapped already) to the stage. */
  submit(batch: { records: RawRecord[] } | { tasks: Task[] }, rowsReadSoFar: number): Promise<StagedBatch> {
    if (!this.pool && this.opts.workers === 'auto' && rowsReadSoFar > this.opts.autoStartRows)
      this.start(autoWorkers());
    // While the workers start, batches run here (which thread runs a batch never changes its rows).
    if (this.pool && this.poolReady) return this.onPool(batch);
    return this.inline(batch);
  }

  private async onPool(batch: { records: RawRecord[] } | { tasks: Task[] }): Promise<StagedBatch> {
    if (this.opts.textOnly) return this.onPoolTexts(batch);
    const reply = await this.pool!.run(batch);
    const tasks: Task[] = reply.tasksJson !== null ? JSON.parse(reply.tasksJson) : reply.tasks!;
    this.prepare(tasks, reply);
    return {
      tasks,
      mapRejected: reply.mapRejected,
      mapMs: reply.mapMs,
      rejected: reply.rejected,
      warnings: reply.warnings,
    };
  }

  /** Map here, send the texts, take back which rows stay and the few texts that changed. */
  private async onPoolTexts(batch: { records: RawRecord[] } | { tasks: Task[] }): Promise<StagedBatch> {
    const mapped =
      'records' in batch ? this.mapHere(batch.records) : { tasks: batch.tasks, mapRejected: [], mapMs: 0 };
    const job = toTextJob(mapped.tasks);
    const reply = await this.pool!.run({ texts: job }, [
      job.promptLength.buffer as ArrayBuffer,
      job.answerLength.buffer as ArrayBuffer,
    ]);
    const { tasks, rejected } = applyTextReply(mapped.tasks, reply.text!);
    this.prepare(tasks, reply);
    return { ...mapped, tasks, rejected, warnings: reply.warnings };
  }

  /** Keep the worker's totals, and hand its near/exact dedup hashes to the rows they were made for. */
  private prepare(tasks: readonly Task[], reply: ChainReply): void {
    this.note(reply);
    if (reply.signatures && reply.signerKey && this.opts.setup?.nearDedupParams) {
      const k = reply.signatures.length / Math.max(1, tasks.length);
      const field = this.opts.setup.nearDedupParams.field;
      for (let i = 0; i < tasks.length; i++) {
        const t = tasks[i]!;
        presign(t, reply.signerKey, readText(t, field), reply.signatures.subarray(i * k, (i + 1) * k));
      }
    }
    if (reply.exactKeys && reply.exactChecks && reply.exactParamsKey && this.opts.setup?.exactDedupParams) {
      const field = this.opts.setup.exactDedupParams.field;
      for (let i = 0; i < tasks.length; i++) {
        const t = tasks[i]!;
        const text = readText(t, field);
        // The prompt's profile came back with this very hash (the default key): exact_dedup reads it there.
        const kept = keptProfile(t, text);
        if (kept && kept.dedupKey === reply.exactKeys[i] && kept.dedupCheck === reply.exactChecks[i])
          continue;
        prepareExactKey(t, reply.exactParamsKey, text, reply.exactKeys[i]!, reply.exactChecks[i]!);
      }
    }
  }

  private async inline(batch: { records: RawRecord[] } | { tasks: Task[] }): Promise<StagedBatch> {
    const mapped =
      'records' in batch ? this.mapHere(batch.records) : { tasks: batch.tasks, mapRejected: [], mapMs: 0 };
    const out = await this.opts.graph.process(mapped.tasks);
    return { ...mapped, tasks: out.rows, rejected: out.rejected, warnings: [] };
  }

  private mapHere(records: readonly RawRecord[]): Omit<StagedBatch, 'rejected' | 'warnings'> {
    const t0 = performance.now();
    const { tasks, rejected: mapRejected } = mapRecords(this.opts.mapping, records);
    return { tasks, mapRejected, mapMs: performance.now() - t0 };
  }

  /** Step totals of the row-wise steps: the main thread's graph plus every worker's. */
  metrics(): StepMetrics[] {
    const total = this.opts.graph.metrics();
    for (const per of this.workerTotals.values())
      for (const [i, m] of per.entries()) addStepCounts(total[i]!, m);
    return total;
  }

  /** Per worker, the share of its life it spent on batches (empty without a pool). */
  busyShares(): number[] {
    return this.pool?.busyShares() ?? [];
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
    this.poolReady = false;
  }
}
