import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawBatch, RawRecord, ReadRejection } from '../../src/io/raw-record.ts';

/** A fresh temp folder; `cleanup` removes it. */
export async function tempDir(): Promise<{
  dir: string;
  path(name: string): string;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'winnow-io-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeBytes(path: string, data: string | Uint8Array): Promise<string> {
  await writeFile(path, data);
  return path;
}

export interface Collected {
  batches: RawBatch[];
  records: RawRecord[];
  rejected: ReadRejection[];
  sizes: number[];
}

export async function collect(batches: AsyncIterable<RawBatch>): Promise<Collected> {
  const out: Collected = { batches: [], records: [], rejected: [], sizes: [] };
  for await (const b of batches) {
    out.batches.push(b);
    out.records.push(...b.records);
    out.rejected.push(...b.rejected);
    out.sizes.push(b.records.length);
  }
  return out;
}

/** Bytes split into chunks at the given cut points (to exercise chunk-boundary handling). */
export async function* chunked(data: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let prev = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c <= prev || c >= data.length) continue;
    yield data.subarray(prev, c);
    prev = c;
  }
  if (prev < data.length || data.length === 0) yield data.subarray(prev);
}

export const fieldsOf = (c: Collected) => c.records.map((r) => r.fields);
export const rowsOf = (c: Collected) => c.records.map((r) => r.source.row);
