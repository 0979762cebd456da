import { basename } from 'node:path';
import { checkDatasetFile, fileBytes, fileHead } from './byte-source.ts';
import { parseReadOptions, type ReadOptions } from './read-options.ts';
import { detectFormat } from './reader.ts';

/**
 * A JSON Lines file as large byte chunks that each end at a line break (the last may end at the end
 * of the file instead), so a chunk can be parsed on its own: the lines of chunk k are the lines of
 * the file after those of chunks 0…k-1. Each chunk owns its whole ArrayBuffer, so it can be
 * transferred to a worker thread without a copy. The file is never parsed here.
 */
export interface JsonlChunk {
  bytes: Uint8Array;
}

/**
 * `bytes`: bytes per chunk (rounded out to the next line break): large enough that per-chunk costs
 * vanish, small enough that a chunk's rows die in V8's young generation instead of being promoted
 * and piling up in the old one until a full GC. 2 MiB chunks made `workers: auto` peak 754–829 MiB
 * at 1M rows of issue 40's file, 256 KiB 596–662 MiB, at the same CPU (docs/performance.md,
 * session 6). `autoMinBytes`: `workers: auto` reads in chunks only inputs this large, so a
 * worker's start pays for itself. Mutable so tests can cut small files into many chunks.
 */
export const jsonlChunking = { bytes: 256 << 10, autoMinBytes: 16 << 20 };

/**
 * Whether `readDataset` would read `path` with the JSON Lines parser (by `format` or extension),
 * and whether it is gzipped (extension or magic bytes, as readDataset decides). Null: not JSONL.
 */
export async function jsonlInputOf(path: string, opts: ReadOptions): Promise<{ gzip: boolean } | null> {
  const o = parseReadOptions(opts);
  let format: string;
  try {
    format = o.format ?? detectFormat(path);
  } catch {
    return null;
  }
  if (format !== 'jsonl') return null;
  const { file, size } = await checkDatasetFile(path);
  if (size === 0) return { gzip: false };
  const magic = await fileHead(file, 2);
  const gzip = basename(file).toLowerCase().endsWith('.gz') || (magic[0] === 0x1f && magic[1] === 0x8b);
  return { gzip };
}

/** Cut a file's byte stream into chunks ending at line breaks (see JsonlChunk). */
export async function* jsonlChunks(
  path: string,
  gzip: boolean,
  chunkBytes = jsonlChunking.bytes,
): AsyncGenerator<JsonlChunk> {
  const { file, size } = await checkDatasetFile(path);
  if (size === 0) return;
  let parts: Buffer[] = [];
  let held = 0;
  for await (const part of fileBytes(file, gzip)) {
    parts.push(part);
    held += part.length;
    // A part without a line break cannot end a chunk (and a long line is not copied again and again).
    if (held < chunkBytes || part.indexOf(10) === -1) continue;
    const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts, held);
    let from = 0;
    while (whole.length - from >= chunkBytes) {
      const nl = whole.indexOf(10, from + chunkBytes - 1);
      if (nl === -1) break;
      yield { bytes: own([whole.subarray(from, nl + 1)], nl + 1 - from) };
      from = nl + 1;
    }
    parts = from < whole.length ? [whole.subarray(from)] : [];
    held = whole.length - from;
  }
  if (held > 0) yield { bytes: own(parts, held) };
}

/** `parts` concatenated into a buffer that owns its ArrayBuffer (never a slice of Node's pool). */
function own(parts: readonly Buffer[], total: number): Buffer {
  const out = Buffer.from(new ArrayBuffer(total));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
