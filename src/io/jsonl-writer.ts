import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { writeAtomically } from '../core/atomic-file.ts';
import { DataError } from '../core/errors.ts';

/** JSON.stringify replacer: BigInt → number (exact) or decimal text; typed arrays → arrays. */
export function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= 9007199254740991n && value >= -9007199254740991n ? Number(value) : value.toString();
  }
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    return Array.from(value as unknown as ArrayLike<unknown>);
  }
  return value;
}

export type RowSource<T> = readonly T[] | AsyncIterable<readonly T[]> | Iterable<readonly T[]>;

/** Normalise "rows, or batches of rows (sync or async)" to an async stream of batches. */
export async function* rowBatches<T>(rows: RowSource<T>): AsyncGenerator<readonly T[]> {
  if (Array.isArray(rows)) {
    yield rows as readonly T[];
    return;
  }
  if (rows === null || typeof rows !== 'object' || 'schema' in rows) {
    throw new DataError({
      message:
        'expected rows: an array of objects or an (async) iterable of arrays of objects (an Arrow Table from another apache-arrow copy is not accepted)',
    });
  }
  for await (const batch of rows as AsyncIterable<readonly T[]>) {
    if (!Array.isArray(batch)) {
      throw new DataError({ message: 'expected each item of a row stream to be an array of rows (a batch)' });
    }
    yield batch;
  }
}

async function* jsonlText(rows: RowSource<object>, count: { rows: number }): AsyncGenerator<string> {
  for await (const batch of rowBatches(rows)) {
    if (batch.length === 0) continue;
    let text = '';
    for (const row of batch) text += `${JSON.stringify(row, jsonSafe)}\n`;
    count.rows += batch.length;
    yield text;
  }
}

/**
 * Write rows as JSON Lines, streaming batch by batch (an array of rows, or an (async) iterable of
 * row batches). A `.gz` path is gzip-compressed. The file appears atomically when complete.
 */
export async function writeJsonl(
  path: string,
  rows: RowSource<object>,
): Promise<{ file: string; rows: number }> {
  const count = { rows: 0 };
  const gzip = path.toLowerCase().endsWith('.gz');
  const file = await writeAtomically(path, async (tmp) => {
    const source = Readable.from(jsonlText(rows, count));
    if (gzip) await pipeline(source, createGzip(), createWriteStream(tmp));
    else await pipeline(source, createWriteStream(tmp));
  });
  return { file, rows: count.rows };
}
