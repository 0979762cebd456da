import { open } from 'node:fs/promises';
import { type RecordBatch, RecordBatchReader } from 'apache-arrow';
import { DataError, errorMessage } from '../core/errors.ts';
import { batchToRecords } from './arrow-values.ts';
import { BatchBuilder } from './batch-builder.ts';
import type { RawBatch } from './raw-record.ts';

const FILE_MAGIC = Buffer.from('ARROW1');
const FEATHER_V1_MAGIC = Buffer.from('FEA1');

/**
 * Arrow IPC, file (`.arrow`, Feather v2) or stream format, read record batch by record batch
 * through apache-arrow's RecordBatchReader over a file handle. Rows are 0-based.
 */
export async function* readArrowFile(file: string, batchSize: number): AsyncGenerator<RawBatch> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(6);
    await fh.read(head, 0, 6, 0);
    if (head.subarray(0, 4).equals(FEATHER_V1_MAGIC)) {
      throw new DataError({
        file,
        message: 'Feather v1 is not supported; re-save it as Feather v2 / Arrow IPC',
      });
    }
    if (head.equals(FILE_MAGIC)) {
      const tail = Buffer.alloc(6);
      await fh.read(tail, 0, 6, Math.max(0, size - 6));
      if (size < 12 || !tail.equals(FILE_MAGIC)) {
        throw new DataError({
          file,
          message:
            'truncated Arrow IPC file: it starts with ARROW1 but has no footer (cut short while copying?)',
        });
      }
    }
    const out = new BatchBuilder(batchSize);
    let row = 0;
    let reader: AsyncIterable<RecordBatch>;
    try {
      const r = await RecordBatchReader.from(fh);
      reader = await r.open();
    } catch (err) {
      throw new DataError({ file, message: `not a readable Arrow IPC file: ${errorMessage(err)}` });
    }
    const it = reader[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<RecordBatch>;
      try {
        next = await it.next();
      } catch (err) {
        throw new DataError({
          file,
          row,
          message: `cannot read Arrow IPC data (truncated or corrupt?): ${errorMessage(err)}`,
        });
      }
      if (next.done) break;
      for (const rec of batchToRecords(next.value, file, row)) out.add(rec);
      row += next.value.numRows;
      for (const b of out.takeReady()) yield b;
    }
    for (const b of out.finish()) yield b;
  } finally {
    await fh.close();
  }
}
