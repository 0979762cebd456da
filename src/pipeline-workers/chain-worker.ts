// The worker side of the pipeline pool: builds the row-wise part of the run's operator chain once
// from the parsed params the main thread sent (chain-setup.ts), then maps and processes the batches it is sent. Every reply carries the batch's rows, drops,
// warnings and this worker's step totals; the main thread puts them back in input order.

import { performance } from 'node:perf_hooks';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import type { RejectedInput } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import { threadCpuMicros } from '../core/thread-cpu.ts';
import { mapRecords } from '../io/map-records.ts';
import { compileMapping } from '../io/mapping.ts';
import type { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import type { ChainJob, ChainReply, ChainSetup } from './chain-messages.ts';
import { buildWorkerChain } from './chain-setup.ts';
import { encodeChunk, encodedBuffers } from './encoded-chunk.ts';
import { packChunk, packedBuffers } from './jsonl-chunk-pack.ts';
import { chunkRows } from './jsonl-chunk-rows.ts';
import { FastChunkReader } from './jsonl-fast-rows.ts';
import { fromTextJob, toTextReply } from './text-job.ts';

const setup = workerData as ChainSetup;
const warnings: Array<{ step: string; message: string }> = [];
// A text-only chain needs only its operators' modules: loading every built-in costs ~0.5 s more
// CPU per worker start. Modules are loaded only for what this run's chain uses.
const registry = setup.textOnly
  ? (await import('./text-only-registry.ts')).textOnlyRegistry()
  : (await import('../operators/registries.ts')).taskOperatorRegistry();
const { graph, keyer, signer } = await buildWorkerChain(setup, registry, (step, message) =>
  warnings.push({ step, message }),
);
const mapping = compileMapping(setup.mapping);

async function handle(job: ChainJob): Promise<Omit<ChainReply, 'id'>> {
  if ('jsonl' in job) return handleChunk(job);
  const mapRejected: RejectedInput[] = [];
  let tasks: Task[];
  const t0 = performance.now();
  if ('records' in job) {
    const mapped = mapRecords(mapping, job.records);
    tasks = mapped.tasks;
    mapRejected.push(...mapped.rejected);
  } else if ('tasks' in job) tasks = job.tasks;
  else tasks = fromTextJob(job.texts);
  const mapMs = performance.now() - t0;
  const out = await graph.process(tasks);
  const hashes = dedupHashes(out.rows);
  const batchWarnings = warnings.splice(0);
  const text = 'texts' in job ? toTextReply(tasks, out) : null;
  return {
    ...(text ? { tasks: null, tasksJson: null } : asJson(out.rows)),
    text,
    mapRejected,
    mapMs,
    rejected: text ? [] : out.rejected,
    warnings: batchWarnings,
    metrics: graph.metrics(),
    worker: threadId,
    ...hashes,
  };
}

/** The near/exact dedup hashes of rows leaving the chain (null fields where the run has no such step). */
function dedupHashes(
  rows: readonly Task[],
): Pick<ChainReply, 'signatures' | 'signerKey' | 'exactKeys' | 'exactChecks' | 'exactParamsKey'> {
  const exact = keyer ? keyer.hashAll(rows) : null;
  return {
    signatures: signer ? signer.signAll(rows) : null,
    signerKey: signer ? signer.key : null,
    exactKeys: exact ? exact.keys : null,
    exactChecks: exact ? exact.checks : null,
    exactParamsKey: keyer ? keyer.key : null,
  };
}

// Plain rows of a chunk read from their bytes when the mapping and every step allow (jsonl-fast-rows.ts).
const fastReader = signer === null ? FastChunkReader.of(mapping, graph, keyer) : null;

/**
 * What every chunk's reply holds besides its rows and hashes: a chunk's read and map rejections
 * travel with its rows (jsonl-chunk-rows.ts), so these lists are empty.
 */
function chunkReply(mapMs: number) {
  return {
    tasks: null,
    tasksJson: null,
    text: null,
    mapRejected: [],
    mapMs,
    rejected: [],
    warnings: warnings.splice(0),
    metrics: graph.metrics(),
    worker: threadId,
  };
}

/** Read, map and process one chunk of a JSONL file; its rows go back packed (jsonl-chunk-pack.ts). */
async function handleChunk(job: {
  jsonl: Parameters<typeof chunkRows>[0];
  encode?: { measure: boolean };
}): Promise<Omit<ChainReply, 'id'>> {
  if (job.encode && keyer) return handleEncoded(job.jsonl, keyer, job.encode.measure);
  if (fastReader !== null) {
    const fast = await fastReader.read(job.jsonl);
    return {
      ...chunkReply(fast.chunk.mapMs),
      chunk: fast.chunk,
      signatures: null,
      signerKey: null,
      exactKeys: fast.exactKeys,
      exactChecks: fast.exactChecks,
      exactParamsKey: keyer ? keyer.key : null,
    };
  }
  const rows = await chunkRows(job.jsonl, mapping, graph);
  const hashes = dedupHashes(rows.tasks);
  return {
    ...chunkReply(rows.mapMs),
    chunk: packChunk(rows, setup.mapping.taskset, job.jsonl.file),
    ...hashes,
  };
}

/** Read, map and process one chunk; its rows go back encoded in the task table's layout (encoded-chunk.ts). */
async function handleEncoded(
  job: Parameters<typeof chunkRows>[0],
  keyer: ExactDedupKeyer,
  measure: boolean,
): Promise<Omit<ChainReply, 'id'>> {
  const rows = await chunkRows(job, mapping, graph);
  const encoded = encodeChunk(rows, {
    runId: setup.runId,
    taskset: setup.mapping.taskset,
    file: job.file,
    keyer,
    measure,
  });
  return {
    ...chunkReply(rows.mapMs),
    chunk: null,
    encoded,
    signatures: null,
    signerKey: null,
    exactKeys: null,
    exactChecks: null,
    exactParamsKey: null,
  };
}

/**
 * Rows as JSON text when that round-trips them exactly: JSON turns NaN and ±Infinity into null and
 * cannot hold a BigInt, so a batch whose text holds `null` anywhere (or that fails) goes as a
 * structured clone instead.
 */
function asJson(rows: Task[]): { tasks: Task[] | null; tasksJson: string | null } {
  try {
    const text = JSON.stringify(rows);
    if (!text.includes('null')) return { tasks: null, tasksJson: text };
  } catch {
    // a BigInt or a cycle: the structured clone below copies it
  }
  return { tasks: rows, tasksJson: null };
}

// Set up: the main thread may now send batches here instead of running them itself.
parentPort!.postMessage({ ready: true });

parentPort!.on('message', async ({ id, job }: { id: number; job: ChainJob }) => {
  try {
    const reply = await handle(job);
    const transfer: ArrayBuffer[] = [];
    for (const a of [
      reply.signatures,
      reply.exactKeys,
      reply.exactChecks,
      reply.text?.kept,
      reply.text?.profiles,
    ])
      if (a) transfer.push(a.buffer as ArrayBuffer);
    if (reply.chunk) transfer.push(...packedBuffers(reply.chunk));
    if (reply.encoded) transfer.push(...encodedBuffers(reply.encoded));
    parentPort!.postMessage({ id, ...reply, cpuMicros: threadCpuMicros() }, transfer);
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
