import type { RejectedInput } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import type { FieldMapping } from '../io/mapping.ts';
import type { RawRecord } from '../io/raw-record.ts';
import type { StepRejection } from '../operators/graph.ts';
import type { ParsedOpStep } from '../operators/graph-spec.ts';
import type { StepMetrics } from '../operators/step-metrics.ts';
import type { EncodedChunk } from './encoded-chunk.ts';
import type { PackedChunk } from './jsonl-chunk-pack.ts';
import type { ChunkJob } from './jsonl-chunk-rows.ts';
import type { ExactDedupParams, NearDedupParams } from './row-wise-plan.ts';
import type { TextJob, TextReply } from './text-job.ts';

/**
 * What every worker is set up with (plain data: it is copied to each thread once). Params travel
 * parsed (row-wise-plan.ts): the worker builds its parts from them as they are.
 */
export interface ChainSetup {
  steps: ParsedOpStep[];
  seed: number;
  runId: string;
  baseDir: string;
  /** The run's mapping: workers map the raw records they are sent. */
  mapping: FieldMapping;
  /** near_dedup's params: workers compute its signatures for their output rows. */
  nearDedupParams: NearDedupParams | null;
  /** exact_dedup's params: workers compute its key hashes for their output rows. */
  exactDedupParams: ExactDedupParams | null;
  /** Every step is text-only (row-wise-plan.ts): the worker loads only those operators' modules. */
  textOnly?: boolean;
}

/**
 * One batch: raw records to map and process, tasks already mapped on the main thread, or (for a
 * chain of text-only steps) the texts of tasks mapped on the main thread, or a chunk of a JSONL
 * file's bytes to read, map and process (jsonl-chunk-rows.ts).
 */
export type ChainJob =
  | { records: RawRecord[] }
  | { tasks: Task[] }
  | { texts: TextJob }
  | { jsonl: ChunkJob; encode?: { measure: boolean } };

export interface ChainReply {
  id: number;
  error?: string;
  /** A `texts` job's answer (kept rows, changed texts, drops by index); then `tasks`, `tasksJson` are null and `rejected` empty. */
  text: TextReply | null;
  /** A `jsonl` job's answer (every row, drop and rejection of the chunk); then `tasks`, `tasksJson` are null. */
  chunk?: PackedChunk | null;
  /** A `jsonl` job sent with `encode`: its rows in the task table's layout (encoded-chunk.ts). */
  encoded?: EncodedChunk | null;
  /** The batch's rows, as objects (copied by structured clone), or null when `tasksJson` holds them. */
  tasks: Task[] | null;
  /** The same rows as one JSON text: the main thread parses that ~2.5x faster than it decodes a clone. */
  tasksJson: string | null;
  /** Records the mapping rejected, in input order. */
  mapRejected: RejectedInput[];
  mapMs: number;
  rejected: StepRejection<Task>[];
  warnings: Array<{ step: string; message: string }>;
  /** This worker's totals so far (the main thread keeps the latest per worker and sums them). */
  metrics: StepMetrics[];
  worker: number;
  /** This worker's CPU time so far (user + system, µs). */
  cpuMicros?: number;
  /** near_dedup signatures of `tasks`, `permutations` numbers per task, or null. */
  signatures: Uint32Array | null;
  signerKey: string | null;
  /** exact_dedup key hashes of `tasks` (53-bit key, 32-bit check), or null. */
  exactKeys: Float64Array | null;
  exactChecks: Uint32Array | null;
  exactParamsKey: string | null;
}
