import { createReadStream, statSync } from 'node:fs';
import { fileHead } from '../io/byte-source.ts';
import { parseJsonl } from '../io/jsonl-reader.ts';
import type { RawBatch } from '../io/raw-record.ts';
import { parseReadOptions, type ReadOptions } from '../io/read-options.ts';
import { detectFormat, readDataset } from '../io/reader.ts';
import type { Shard } from './pipeline-job.ts';

/**
 * Split the inputs into shards, in input order. A plain (not gzipped) JSON Lines file larger than
 * `shardBytes` is cut into byte ranges that start at line starts; one pass over its bytes counts
 * the lines before each cut, so a shard's rows keep their line numbers in the file. Any other file
 * (CSV, JSON, Parquet, Arrow, gzip, or a small JSONL) is one shard.
 */
export async function planShards(
  files: readonly string[],
  read: ReadOptions,
  shardBytes: number,
): Promise<Shard[]> {
  const shards: Shard[] = [];
  for (const file of files) {
    const size = statSync(file).size;
    const format = read.format ?? detectFormat(file);
    const head = size >= 2 ? await fileHead(file, 2) : Buffer.alloc(0);
    const gzip = file.endsWith('.gz') || (head[0] === 0x1f && head[1] === 0x8b);
    if (format !== 'jsonl' || gzip || size <= shardBytes) {
      shards.push({ index: shards.length, file, range: null, lineOffset: 0 });
      continue;
    }
    for (const cut of await lineCuts(file, size, shardBytes))
      shards.push({ index: shards.length, file, ...cut });
  }
  return shards;
}

async function lineCuts(
  file: string,
  size: number,
  shardBytes: number,
): Promise<Array<Pick<Shard, 'range' | 'lineOffset'>>> {
  const starts = [{ at: 0, line: 0 }];
  let pos = 0;
  let lines = 0;
  let target = shardBytes;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let i = chunk.indexOf(10);
    while (i !== -1) {
      lines++;
      const next = pos + i + 1;
      if (next >= target && next < size) {
        starts.push({ at: next, line: lines });
        target = next + shardBytes;
      }
      i = chunk.indexOf(10, i + 1);
    }
    pos += chunk.length;
  }
  return starts.map((s, k) => ({
    range: { start: s.at, end: starts[k + 1]?.at ?? size },
    lineOffset: s.line,
  }));
}

/**
 * Read one shard as the single-process reader would read its rows: same records, same rejections,
 * same line numbers (a byte range's lines are renumbered from its offset).
 */
export async function* readShard(shard: Shard, read: ReadOptions): AsyncGenerator<RawBatch> {
  if (shard.range === null) {
    yield* readDataset(shard.file, read);
    return;
  }
  const o = parseReadOptions(read);
  const ctx = {
    file: shard.file,
    batchSize: o.batchSize,
    maxLineBytes: o.maxLineBytes,
    maxDepth: o.maxDepth,
  };
  const bytes = createReadStream(shard.file, {
    start: shard.range.start,
    end: shard.range.end - 1,
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>;
  const shift = shard.lineOffset;
  for await (const batch of parseJsonl(bytes, ctx)) {
    for (const r of batch.records) r.source.row += shift;
    for (const r of batch.rejected) if (r.row >= 0) r.row += shift;
    yield batch;
  }
}
