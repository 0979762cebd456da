import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { DataError, errorMessage } from '../core/errors.ts';

/** Read size for text formats: big chunks keep per-chunk overhead negligible. */
const CHUNK_BYTES = 1 << 20;

export const DATASET_EXTENSIONS =
  '.jsonl, .ndjson, .json, .csv, .tsv (optionally .gz), .parquet, .arrow, .feather, .ipc';

/**
 * Resolve `path` and check it names a readable regular file. Returns the absolute path and size.
 * Missing paths and directories fail with a DataError that says what was expected.
 */
export async function checkDatasetFile(path: string): Promise<{ file: string; size: number }> {
  const file = resolve(path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new DataError({
        file,
        message: `file not found; expected a dataset file (${DATASET_EXTENSIONS})`,
      });
    }
    throw new DataError({ file, message: `cannot open dataset file: ${errorMessage(err)}` });
  }
  if (info.isDirectory()) {
    throw new DataError({
      file,
      message: `is a directory; expected a dataset file (${DATASET_EXTENSIONS})`,
    });
  }
  if (!info.isFile()) {
    throw new DataError({
      file,
      message: `is not a regular file; expected a dataset file (${DATASET_EXTENSIONS})`,
    });
  }
  return { file, size: Number(info.size) };
}

/** The file's bytes as a stream of Buffers, gunzipped when `gzip` is set. I/O and gzip errors become DataErrors. */
export async function* fileBytes(file: string, gzip: boolean): AsyncGenerator<Buffer> {
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const stream = gzip ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  if (gzip) raw.on('error', (err) => stream.destroy(err));
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (err) {
    const what = gzip ? 'cannot read gzip data (corrupt or truncated .gz file?)' : 'cannot read file';
    throw new DataError({ file, message: `${what}: ${errorMessage(err)}` });
  } finally {
    raw.destroy();
    if (stream !== raw) stream.destroy();
  }
}

/** The first `n` bytes of a file (fewer if it is shorter). */
export async function fileHead(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A byte stream with some already-consumed chunks put back in front. */
export async function* prepend(
  head: Uint8Array[],
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    for (const chunk of head) yield chunk;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.(undefined);
  }
}
