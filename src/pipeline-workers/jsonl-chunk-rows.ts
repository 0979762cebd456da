import { performance } from 'node:perf_hooks';
import type { Task } from '../core/task.ts';
import { BatchBuilder } from '../io/batch-builder.ts';
import { JsonlParser } from '../io/jsonl-reader.ts';
import { type MapRejection, mapRecords } from '../io/map-records.ts';
import type { CompiledMapping } from '../io/mapping.ts';
import type { ReadRejection } from '../io/raw-record.ts';
import type { OperatorGraph, StepRejection } from '../operators/graph.ts';

/** One chunk of a JSONL file to parse (jsonl-chunks.ts), with the reader options that shape its rows. */
export interface ChunkJob {
  bytes: Uint8Array;
  file: string;
  maxLineBytes: number;
  maxDepth: number;
}

/**
 * A chunk after reading, mapping and the row-wise steps, numbered locally: line numbers start at 1
 * in the chunk, and every row carries the ordinal of the record it came from (0-based in the chunk),
 * which is what places it in the run's batches (a batch is `batchSize` records of a file).
 */
export interface ChunkRows<R = Task> {
  /** Lines in the chunk (blank and bad ones included). */
  lines: number;
  /** Records read (lines that parsed to an object). */
  records: number;
  readRejected: ReadRejection[];
  /** Per read rejection, how many records of the chunk came before it. */
  readBefore: Int32Array;
  mapRejected: MapRejection[];
  mapOrdinal: Int32Array;
  mapMs: number;
  /** The rows left (tasks; on an encoded chunk's way to landing, their indices in the run's encoded rows). */
  tasks: R[];
  taskOrdinal: Int32Array;
  /** The steps' drops, in the order the graph reported them (step by step, rows in order). */
  rejected: StepRejection<Task>[];
  rejectedOrdinal: Int32Array;
}

/**
 * Read one chunk exactly as the JSONL reader reads a file (the same parser: BOM, CRLF, blank lines,
 * bad lines with their reason and line), map its records and run the row-wise steps on them.
 */
export async function chunkRows(
  job: ChunkJob,
  mapping: CompiledMapping,
  graph: OperatorGraph<Task>,
): Promise<ChunkRows> {
  return (await chunkRowsAndLines(job, mapping, graph)).rows;
}

/** `chunkRows`, with the line of each record (by ordinal) beside. */
export async function chunkRowsAndLines(
  job: ChunkJob,
  mapping: CompiledMapping,
  graph: OperatorGraph<Task>,
): Promise<{ rows: ChunkRows; recordLines: Int32Array }> {
  const out = new BatchBuilder(Number.MAX_SAFE_INTEGER);
  const parser = new JsonlParser(
    {
      file: job.file,
      batchSize: Number.MAX_SAFE_INTEGER,
      maxLineBytes: job.maxLineBytes,
      maxDepth: job.maxDepth,
    },
    out,
  );
  parser.push(job.bytes);
  parser.end();
  const lines = parser.lines;
  const batch = out.finish()[0] ?? { records: [], rejected: [] };
  const records = batch.records;
  // Line → record ordinal (-1: no record on that line).
  const ordinalOf = new Int32Array(lines + 1).fill(-1);
  for (let k = 0; k < records.length; k++) ordinalOf[records[k]!.source.row] = k;
  const readBefore = new Int32Array(batch.rejected.length);
  let k = 0;
  for (let r = 0; r < batch.rejected.length; r++) {
    const line = batch.rejected[r]!.row;
    while (k < records.length && records[k]!.source.row < line) k++;
    readBefore[r] = k;
  }
  const t0 = performance.now();
  const mapped = mapRecords(mapping, records);
  const mapMs = performance.now() - t0;
  // Loops, not Int32Array.from with a closure made per chunk (see placeRow).
  const mapOrdinal = new Int32Array(mapped.rejected.length);
  for (let i = 0; i < mapped.rejected.length; i++) mapOrdinal[i] = ordinalOf[mapped.rejected[i]!.row]!;
  const done = await graph.process(mapped.tasks);
  const taskOrdinal = new Int32Array(done.rows.length);
  for (let i = 0; i < done.rows.length; i++) taskOrdinal[i] = placeRow(done.rows[i]!, ordinalOf, job.file);
  const rejectedOrdinal = new Int32Array(done.rejected.length);
  for (let i = 0; i < done.rejected.length; i++)
    rejectedOrdinal[i] = placeRow(done.rejected[i]!.row, ordinalOf, job.file);
  const rows: ChunkRows = {
    lines,
    records: records.length,
    readRejected: batch.rejected,
    readBefore,
    mapRejected: mapped.rejected,
    mapOrdinal,
    mapMs,
    tasks: done.rows,
    taskOrdinal,
    rejected: done.rejected,
    rejectedOrdinal,
  };
  const recordLines = new Int32Array(records.length);
  for (let i = 0; i < records.length; i++) recordLines[i] = records[i]!.source.row;
  return { rows, recordLines };
}

/**
 * The ordinal of the record `t` came from (`ordinalOf`: line → ordinal, -1 for none). A function of
 * the module, not a closure made per chunk, so that its optimised code lives (see filterRows).
 */
function placeRow(t: Task, ordinalOf: Int32Array, file: string): number {
  const row = t.source?.row;
  const lines = ordinalOf.length - 1;
  const k = row !== undefined && row >= 1 && row <= lines && t.source?.file === file ? ordinalOf[row]! : -1;
  // Row-wise steps keep a row's source (they derive rows from one input row); a step that did
  // not cannot be placed in its batch, and guessing would change the run's output.
  if (k < 0) throw new Error(`a row-wise step changed the source of a row from ${file}`);
  return k;
}

/** Renumber a chunk's rows by `lineOffset` (the lines of the chunks before it). Copies each source. */
export function shiftChunkRows(rows: ChunkRows, lineOffset: number): void {
  if (lineOffset === 0) return;
  for (const r of rows.readRejected) r.row += lineOffset;
  for (const r of rows.mapRejected) r.row += lineOffset;
  const moved = new Set<object>();
  const shift = (t: Task) => {
    // Rows a step derived from one input row may share its source object: move each once.
    if (t.source && !moved.has(t)) {
      t.source = { ...t.source, row: t.source.row + lineOffset };
      moved.add(t);
    }
  };
  for (const t of rows.tasks) shift(t);
  for (const r of rows.rejected) shift(r.row);
}
