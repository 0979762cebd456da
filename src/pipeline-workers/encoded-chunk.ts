import type { Task } from '../core/task.ts';
import { tableToIpcStream } from '../io/arrow-ipc.ts';
import type { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import { type LandedMeasures, measureLanded } from '../operators/task/landed-measures.ts';
import { TaskRowsEncoder } from '../store/task-encoder.ts';
import { usual } from './jsonl-chunk-pack.ts';
import type { ChunkRows } from './jsonl-chunk-rows.ts';

/**
 * A chunk's rows on their way from a worker to the main thread when the rest of the chain is
 * exact_dedup alone (row-stage.ts `encodeRows`): already in the task table's typed layout, so the
 * main thread makes no task object for a row it lands. Beside the rows go what the main thread
 * still needs of each: its id and text key hash (for the dedup), its report measures, and, for
 * the few rows its encoded columns cannot give back exactly (another shape, a lone surrogate, a leading U+FEFF), the
 * row itself (a dropped row's rejected record is written from it).
 */
export interface EncodedChunk extends Omit<ChunkRows, 'tasks'> {
  /** The rows (Arrow IPC stream, TaskRowsEncoder's layout), `source_row` numbered in the chunk. */
  ipc: Uint8Array;
  /** Every row's id, end to end, and where each ends. */
  ids: string;
  idEnds: Int32Array;
  /** exact_dedup's key hashes of the rows (53-bit key, 32-bit check). */
  keys: Float64Array;
  checks: Uint32Array;
  /** What the run's report counts of each row; null when the run writes no report. */
  measures: LandedMeasures | null;
  /** Rows that are not of the usual shape (jsonl-chunk-pack.ts) or hold text the columns cannot give back (readsBack), by index. */
  oddIndex: Int32Array;
  odd: Task[];
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * A text the main thread reads back exactly from the encoded Utf8 column: a lone surrogate does not
 * survive UTF-8, and Arrow's decoding (TextDecoder) drops a leading U+FEFF.
 */
function readsBack(text: string | undefined): boolean {
  return text === undefined || (text.charCodeAt(0) !== 0xfeff && !SURROGATE.test(text));
}

/** A row the main thread can write back from its id, prompt, answer and line alone. */
function rebuildable(t: Task, taskset: string, file: string): boolean {
  return usual(t, taskset, file) && !SURROGATE.test(t.id) && readsBack(t.prompt) && readsBack(t.answer);
}

/** The worker's side: `rows` (local line numbers) encoded for the main thread. */
export function encodeChunk(
  rows: ChunkRows,
  o: { runId: string; taskset: string; file: string; keyer: ExactDedupKeyer; measure: boolean },
): EncodedChunk {
  const { tasks, ...rest } = rows;
  const encoder = new TaskRowsEncoder(o.runId, tasks.length, tasks);
  const idEnds = new Int32Array(tasks.length);
  const ids: string[] = new Array(tasks.length);
  const oddIndex: number[] = [];
  const odd: Task[] = [];
  let at = 0;
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    encoder.push(t);
    ids[i] = t.id;
    at += t.id.length;
    idEnds[i] = at;
    if (!rebuildable(t, o.taskset, o.file)) {
      oddIndex.push(i);
      odd.push(t);
    }
  }
  const { keys, checks } = o.keyer.hashAll(tasks);
  return {
    ...rest,
    ipc: tableToIpcStream(encoder.finish(Date.now())),
    ids: ids.join(''),
    idEnds,
    keys,
    checks,
    measures: o.measure ? measureLanded(tasks) : null,
    oddIndex: Int32Array.from(oddIndex),
    odd,
  };
}

/** The buffers of an encoded chunk, to transfer instead of copy. */
export function encodedBuffers(e: EncodedChunk): ArrayBuffer[] {
  return [
    e.readBefore,
    e.mapOrdinal,
    e.rejectedOrdinal,
    e.taskOrdinal,
    e.ipc,
    e.idEnds,
    e.keys,
    e.checks,
    e.oddIndex,
  ].map((a) => a.buffer as ArrayBuffer);
}
