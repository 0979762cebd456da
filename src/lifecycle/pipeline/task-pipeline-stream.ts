import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type * as arrow from 'apache-arrow';
import type { RejectedInput } from '../../core/rejected.ts';
import type { Task } from '../../core/task.ts';
import { fileHead } from '../../io/byte-source.ts';
import { jsonlChunking, jsonlChunks, jsonlInputOf } from '../../io/jsonl-chunks.ts';
import { mapRecords } from '../../io/map-records.ts';
import type { CompiledMapping } from '../../io/mapping.ts';
import type { ReadRejection } from '../../io/raw-record.ts';
import { parseReadOptions } from '../../io/read-options.ts';
import { readDataset } from '../../io/reader.ts';
import type { OperatorGraph, StepRejection } from '../../operators/graph.ts';
import { countReason as count, type StepMetrics } from '../../operators/step-metrics.ts';
import { ChunkBatcher, type ChunkWay, type LandingBatch } from '../../pipeline-workers/chunk-batches.ts';
import type { RowStage, StagedBatch } from '../../pipeline-workers/row-stage.ts';
import { autoWorkers } from '../../pipeline-workers/row-stage.ts';
import type { Hooks } from '../hooks.ts';
import type { LandedMeasures } from './report/collector.ts';
import type { RowsEstimate } from './rows-estimate.ts';
import type { TaskPipelineConfig } from './task-pipeline-config.ts';
import { encodedWay } from './task-pipeline-encoded.ts';
import { readOptionsOf } from './task-pipeline-inputs.ts';
import type { TaskPipelineEvents } from './task-pipeline-types.ts';

export interface StreamContext {
  runId: string;
  files: readonly string[];
  config: TaskPipelineConfig;
  mapping: CompiledMapping;
  hooks: Hooks<TaskPipelineEvents>;
  /** Mapping and the leading row-wise steps (workers or main thread). */
  stage: RowStage;
  /** The steps after them, on the main thread, in order. */
  graph: OperatorGraph<Task>;
  steps: { read: StepMetrics; map: StepMetrics; hooks: StepMetrics };
  reject(r: RejectedInput): void;
  rejectTask(step: string, task: Task, reason: string): void;
  /** A batch's final rows, in input order. */
  land(rows: Task[]): Promise<void>;
  /**
   * `land` for rows already encoded in the table's typed layout (queued ingest: pipeline workers
   * encode their shard's rows), `kept` naming the rows of `measures` they are. Set only when the
   * table has the typed layout and no afterTaskOps hook would need the rows as tasks.
   */
  landEncoded?: (
    rows: arrow.Table,
    measures: LandedMeasures | null,
    kept: readonly number[],
  ) => Promise<void>;
  /**
   * With `landEncoded`: the writer's id check on one encoded row (TaskLanding.admitEncoded), set
   * when the writer checks ids (the chain's exact_dedup does not: `checkIds: false`).
   */
  admitEncoded?: (id: string, source: Task['source'], task: () => Task) => boolean;
  warn(message: string): void;
  /** After each batch is landed (progress). */
  afterBatch(file: string, rowsRead: number): void;
  /** Rows the run expects, learnt while reading (operators see it as OperatorContext.expectedRows). */
  rowsEstimate?: RowsEstimate;
}

/**
 * A batch after the row-wise steps (on a worker or here), the same whichever way it was read: its
 * warnings and drops recorded, the rest of the graph run, its rows landed, progress reported.
 */
async function landStaged(
  c: StreamContext,
  staged: Pick<StagedBatch, 'warnings' | 'rejected' | 'tasks'>,
  file: string,
  rowsRead: number,
): Promise<void> {
  for (const w of staged.warnings) c.warn(`${w.step}: ${w.message}`);
  for (const r of staged.rejected) c.rejectTask(r.step, r.row, r.reason);
  const out = await c.graph.process(staged.tasks);
  for (const r of out.rejected) c.rejectTask(r.step, r.row, r.reason);
  await c.land(out.rows);
  c.afterBatch(file, rowsRead);
}

/** One batch between its read and its landing. */
interface Queued {
  file: string;
  readRejected: ReadRejection[];
  records: number;
  /** Mapped (and hook-checked) on the main thread: their rejections, recorded when the batch lands. */
  mappedHere: { mapRejected: RejectedInput[]; mapMs: number; hookRejected: StepRejection<Task>[] } | null;
  staged: Promise<StagedBatch>;
}

/**
 * Read every input, push each batch through the row stage, and land the batches strictly in read
 * order: a batch's read, map, hook and operator rejections are recorded when it lands, so the
 * rejected table, the landed rows and their order are the same whether one thread or several did
 * the work. At most `stage.window` batches are in flight (memory stays bounded). Returns the
 * counts of rows read and of input errors.
 */
export async function streamInputs(
  c: StreamContext,
): Promise<{ rowsRead: number; inputErrors: number; tailSteps?: StepMetrics[] }> {
  let rowsRead = 0;
  let inputErrors = 0;
  const hooked = c.hooks.count('afterIngest') > 0;
  if (!hooked && c.stage.takesChunks) {
    const inputs = await chunkedInputs(c);
    if (inputs && c.stage.encodesChunks && c.landEncoded) {
      // encodesChunks: the chain after the row-wise steps is the built-in exact_dedup alone.
      const checkIds = (c.config.operators.at(-1) as { params?: { checkIds?: boolean } }).params?.checkIds;
      const way = encodedWay(c, c.landEncoded, { checkIds: checkIds !== false });
      return { ...(await streamChunks(c, inputs, way)), tailSteps: way.tailSteps() };
    }
    if (inputs) return streamChunks(c, inputs, taskWay(c));
  }
  if (c.rowsEstimate) await estimateRows(c.files, c.config, c.rowsEstimate);
  const queue: Queued[] = [];

  const landOldest = async () => {
    const q = queue.shift()!;
    for (const r of q.readRejected) {
      count(c.steps.read, r.reason);
      inputErrors++;
      c.reject({ step: r.step, reason: r.reason, file: r.file, row: r.row, payload: r.payload });
    }
    const staged = await q.staged;
    const mapRejected = q.mappedHere ? q.mappedHere.mapRejected : staged.mapRejected;
    for (const r of mapRejected) {
      count(c.steps.map, r.reason);
      inputErrors++;
      c.reject(r);
    }
    c.steps.map.rowsIn += q.records;
    c.steps.map.rowsOut += q.records - mapRejected.length;
    c.steps.map.ms += q.mappedHere ? q.mappedHere.mapMs : staged.mapMs;
    for (const r of q.mappedHere?.hookRejected ?? []) {
      count(c.steps.hooks, r.reason);
      c.rejectTask(r.step, r.row, r.reason);
    }
    await landStaged(c, staged, q.file, rowsRead);
  };

  for (const file of c.files) {
    const readBefore = rowsRead;
    for await (const batch of readDataset(file, readOptionsOf(c.config.input))) {
      const tr = performance.now();
      c.steps.read.rowsIn += batch.records.length + batch.rejected.length;
      c.steps.read.rowsOut += batch.records.length;
      rowsRead += batch.records.length + batch.rejected.length;
      c.steps.read.ms += performance.now() - tr;
      let mappedHere: Queued['mappedHere'] = null;
      let staged: Promise<StagedBatch>;
      if (hooked) {
        // afterIngest hooks see mapped tasks before any operator: map and run them here.
        const t0 = performance.now();
        const { tasks, rejected: mapRejected } = mapRecords(c.mapping, batch.records);
        const mapMs = performance.now() - t0;
        const ingested = await c.hooks.emit('afterIngest', { runId: c.runId, file, rows: tasks });
        const hookRejected = ingested.rejected.map((r) => ({
          step: r.step,
          row: r.row as Task,
          reason: r.reason,
        }));
        mappedHere = { mapRejected, mapMs, hookRejected };
        staged = c.stage.submit({ tasks: ingested.payload.rows }, rowsRead);
      } else staged = c.stage.submit({ records: batch.records }, rowsRead);
      // A failed batch fails the run when it is landed; until then its failure is not unhandled.
      staged.catch(() => undefined);
      queue.push({ file, readRejected: batch.rejected, records: batch.records.length, mappedHere, staged });
      while (queue.length >= c.stage.window) await landOldest();
    }
    while (queue.length > 0) await landOldest();
    // An empty input is almost always a mistake (wrong file, failed download): say so.
    if (rowsRead === readBefore)
      c.warn(`${file}: no rows read (the file is empty or holds only blank lines or a header)`);
  }
  return { rowsRead, inputErrors };
}

/**
 * The rows a run of plain (not gzipped) JSONL inputs will read, from the lines in the first MiB of
 * the first file: a sizing hint for exact_dedup's tables (without it they grow and rebuild a
 * dozen times on the way to 1M rows). Other inputs leave the estimate unknown, as before.
 */
async function estimateRows(
  files: readonly string[],
  config: TaskPipelineConfig,
  estimate: RowsEstimate,
): Promise<void> {
  let bytes = 0;
  for (const file of files) {
    const jsonl = await jsonlInputOf(file, readOptionsOf(config.input)).catch(() => null);
    if (!jsonl || jsonl.gzip) return;
    bytes += statSync(file).size;
  }
  if (files.length === 0 || bytes === 0) return;
  const head = await fileHead(files[0]!, 1 << 20);
  let lines = 0;
  for (let i = head.indexOf(10); i >= 0; i = head.indexOf(10, i + 1)) lines++;
  estimate.setInputBytes(bytes);
  estimate.sample(lines, head.length);
}

/**
 * The inputs, when every one is read by the JSONL parser and workers may take them in chunks; null
 * otherwise (the batch path above then reads them, as before).
 */
async function chunkedInputs(c: StreamContext): Promise<Array<{ file: string; gzip: boolean }> | null> {
  const inputs: Array<{ file: string; gzip: boolean }> = [];
  let bytes = 0;
  for (const file of c.files) {
    const jsonl = await jsonlInputOf(file, readOptionsOf(c.config.input)).catch(() => null);
    if (!jsonl) return null;
    inputs.push({ file, ...jsonl });
    bytes += statSync(file).size;
  }
  if (c.config.workers === 'auto') {
    if (bytes < jsonlChunking.autoMinBytes) return null;
    c.stage.startForChunks(autoWorkers());
  }
  if (inputs.every((i) => !i.gzip)) c.rowsEstimate?.setInputBytes(bytes);
  return inputs;
}

/** Chunks whose rows come back as tasks: landed through the rest of the graph. */
function taskWay(c: StreamContext): ChunkWay<Task> {
  return {
    run: (job) => c.stage.runChunk(job),
    land: (b, rowsRead) => landStaged(c, b, b.file, rowsRead),
  };
}

/**
 * JSONL inputs on the workers: the main thread cuts each file into large chunks at line breaks and
 * never parses them; a worker reads, maps and runs the row-wise steps on a chunk (jsonl-chunk-rows.ts)
 * and sends its rows back packed or encoded (`way`). Here the chunks are put back in order, cut into
 * the batches the reader would have yielded (ChunkBatcher) and landed exactly as streamInputs lands a batch.
 */
async function streamChunks<R>(
  c: StreamContext,
  inputs: ReadonlyArray<{ file: string; gzip: boolean }>,
  way: ChunkWay<R>,
): Promise<{ rowsRead: number; inputErrors: number }> {
  const read = parseReadOptions(readOptionsOf(c.config.input));
  let rowsRead = 0;
  let inputErrors = 0;
  const land = async (b: LandingBatch<R>) => {
    rowsRead += b.records + b.readRejected.length;
    inputErrors += recordChunkInputs(c, b);
    await way.land(b, rowsRead);
  };
  for (const { file, gzip } of inputs) {
    const readBefore = rowsRead;
    const batcher = new ChunkBatcher<R>(file, read.batchSize, c.stage.stepNames);
    const queue: Array<{ job: ReturnType<ChunkWay<R>['run']>; bytes: number; settled: { done: boolean } }> =
      [];
    const takeOldest = async () => {
      const { job, bytes } = queue.shift()!;
      const done = await job;
      const rows = done.rows(batcher.lines);
      c.rowsEstimate?.sample(rows.lines, bytes);
      for (const b of batcher.add(rows, done.warnings)) await land(b);
    };
    const submit = (bytes: Uint8Array, here: boolean) => {
      const job = way.run({ bytes, file, maxLineBytes: read.maxLineBytes, maxDepth: read.maxDepth }, here);
      const settled = { done: false };
      // A failed chunk fails the run when it is taken; until then its failure is not unhandled.
      job.then(
        () => (settled.done = true),
        () => (settled.done = true),
      );
      queue.push({ job, bytes: bytes.length, settled });
    };
    const chunks = jsonlChunks(file, gzip)[Symbol.asyncIterator]();
    try {
      await stealingLoop();
    } finally {
      // A failed chunk ends the loop early: close the file as `for await` would.
      await chunks.return(undefined);
    }
    async function stealingLoop() {
      let next = await chunks.next();
      while (!next.done) {
        submit(next.value.bytes, false);
        next = await chunks.next();
        while (queue.length >= c.stage.chunkWindow) {
          // Work stealing: rather than wait for the oldest chunk, the main thread runs the next one
          // itself (bounded: at most one window more in flight). Which thread runs a chunk never
          // changes its rows; this only keeps both cores busy when the workers are the bound.
          if (
            !queue[0]!.settled.done &&
            !next.done &&
            queue.length < 2 * c.stage.chunkWindow &&
            way.canHelp?.()
          ) {
            submit(next.value.bytes, true);
            next = await chunks.next();
            continue;
          }
          await takeOldest();
        }
      }
      while (queue.length > 0) await takeOldest();
    }
    for (const b of batcher.finish()) await land(b);
    if (rowsRead === readBefore)
      c.warn(`${file}: no rows read (the file is empty or holds only blank lines or a header)`);
  }
  return { rowsRead, inputErrors };
}

/**
 * A chunked batch's read and map rejections and counts, recorded as streamInputs records them (also
 * for a queued run's shard batches: scale/pipeline-landing.ts). Returns its input errors.
 */
export function recordChunkInputs(
  c: StreamContext,
  b: Pick<LandingBatch<unknown>, 'records' | 'readRejected' | 'mapRejected' | 'mapMs'>,
): number {
  let inputErrors = 0;
  c.steps.read.rowsIn += b.records + b.readRejected.length;
  c.steps.read.rowsOut += b.records;
  for (const r of b.readRejected) {
    count(c.steps.read, r.reason);
    inputErrors++;
    c.reject({ step: r.step, reason: r.reason, file: r.file, row: r.row, payload: r.payload });
  }
  for (const r of b.mapRejected) {
    count(c.steps.map, r.reason);
    inputErrors++;
    c.reject(r);
  }
  c.steps.map.rowsIn += b.records;
  c.steps.map.rowsOut += b.records - b.mapRejected.length;
  c.steps.map.ms += b.mapMs;
  return inputErrors;
}
