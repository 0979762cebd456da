import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tableFromIPC } from 'apache-arrow';
import { ParquetFile, readParquet } from 'parquet-wasm';
import { DataError, errorMessage } from '../core/errors.ts';
import { batchToRecords } from './arrow-values.ts';
import { BatchBuilder } from './batch-builder.ts';
import type { RawBatch } from './raw-record.ts';

/** Most uncompressed bytes of row groups decoded per wasm call (at least one group per call). */
const DECODE_BUDGET_BYTES = 128 * 1024 * 1024;

interface RowGroupInfo {
  index: number;
  rows: number;
  bytes: number;
}

/** Row-group sizes from the footer (read through a file-backed Blob: only the footer is loaded). */
async function rowGroupsOf(file: string): Promise<RowGroupInfo[]> {
  let pf: ParquetFile;
  try {
    pf = await ParquetFile.fromFile(await openAsBlob(file));
  } catch (err) {
    throw new DataError({
      file,
      message: `not a readable Parquet file (truncated or corrupt?): ${wasmMessage(err)}`,
    });
  }
  try {
    const md = pf.metadata();
    const groups = md.rowGroups().map((g, index) => ({ index, rows: g.numRows(), bytes: g.totalByteSize() }));
    md.free();
    return groups;
  } finally {
    pf.free();
  }
}

/** Consecutive row groups packed into calls of at most DECODE_BUDGET_BYTES. */
function plan(groups: RowGroupInfo[]): RowGroupInfo[][] {
  const calls: RowGroupInfo[][] = [];
  let cur: RowGroupInfo[] = [];
  let bytes = 0;
  for (const g of groups) {
    if (cur.length > 0 && bytes + g.bytes > DECODE_BUDGET_BYTES) {
      calls.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(g);
    bytes += g.bytes;
  }
  if (cur.length > 0) calls.push(cur);
  return calls;
}

/**
 * Parquet through parquet-wasm, a few row groups at a time: the footer says how the file is cut,
 * each call decodes a bounded run of row groups to Arrow, which crosses to apache-arrow as an IPC
 * stream and is turned into records `batchSize` rows at a time. So a 1M-row file is never 1M JS
 * objects at once. Rows are 0-based.
 *
 * Why the synchronous `readParquet` and not parquet-wasm's async stream: on corrupt pages the async
 * reader panics inside a wasm microtask, which no caller can catch and which kills the process;
 * the synchronous decoder reports the same damage as an ordinary, catchable error.
 */
export async function* readParquetFile(file: string, batchSize: number): AsyncGenerator<RawBatch> {
  const groups = await rowGroupsOf(file);
  const bytes = await readFile(file);
  const out = new BatchBuilder(batchSize);
  let row = 0;
  for (const call of plan(groups)) {
    if (call.every((g) => g.rows === 0)) continue;
    let table: ReturnType<typeof tableFromIPC>;
    try {
      const wasmTable = readParquet(bytes, { rowGroups: call.map((g) => g.index), batchSize });
      table = tableFromIPC(wasmTable.intoIPCStream());
    } catch (err) {
      const which =
        call.length === 1
          ? `row group ${call[0]!.index}`
          : `row groups ${call[0]!.index}–${call.at(-1)!.index}`;
      throw new DataError({
        file,
        row,
        message: `cannot decode Parquet ${which} (corrupt data?): ${wasmMessage(err)}`,
      });
    }
    for (const batch of table.batches) {
      for (const rec of batchToRecords(batch, file, row)) out.add(rec);
      row += batch.numRows;
      for (const b of out.takeReady()) yield b;
    }
  }
  for (const b of out.finish()) yield b;
}

function wasmMessage(err: unknown): string {
  const msg = errorMessage(err);
  if (msg === 'unreachable') return 'the Parquet decoder aborted';
  return msg.replace('Error strings stripped', 'decompression failed');
}
