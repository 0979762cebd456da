import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { ExactDedupKeyer } from '../../src/operators/task/exact-dedup-prepared.ts';
import { encodeChunk } from '../../src/pipeline-workers/encoded-chunk.ts';
import { EncodedRows } from '../../src/pipeline-workers/encoded-rows.ts';
import type { ChunkRows } from '../../src/pipeline-workers/jsonl-chunk-rows.ts';

// A dropped row's rejected record is written from `EncodedRows.task`, rebuilt from the encoded
// columns unless the worker sent the row itself. Every row must come back exactly as it was.
const FILE = '/data/in.jsonl';

function row(i: number, prompt: string, answer?: string): Task {
  return {
    id: `r${i}`,
    taskset: 'e',
    prompt,
    ...(answer !== undefined ? { answer } : {}),
    features: {},
    meta: {},
    source: { file: FILE, row: i + 1 },
  };
}

function chunkOf(tasks: Task[]): ChunkRows {
  const none = new Int32Array(0);
  return {
    lines: tasks.length,
    records: tasks.length,
    readRejected: [],
    readBefore: none,
    mapRejected: [],
    mapOrdinal: none,
    mapMs: 0,
    tasks,
    taskOrdinal: Int32Array.from(tasks, (_, i) => i),
    rejected: [],
    rejectedOrdinal: none,
  };
}

describe('EncodedRows.task gives back the rows a chunk was encoded from', () => {
  it('texts opening with U+FEFF (a byte-order mark), lone surrogates, CJK and plain ASCII', () => {
    const tasks = [
      row(0, 'plain question', 'plain answer'),
      row(1, 'the', '\ufeff'),
      row(2, '\ufeffopens with a BOM', 'a'),
      row(3, 'ends with one\ufeff', '\ufeff\ufeffx'),
      row(4, 'lone \ud800 surrogate'),
      row(5, '中文的问题', '答案'),
      row(6, 'no answer'),
    ];
    const keyer = new ExactDedupKeyer({
      field: 'prompt',
      unicode: 'NFKC',
      lowercase: true,
      stripPunctuation: true,
      whitespace: 'collapse',
    });
    const encoded = encodeChunk(chunkOf(tasks.map((t) => structuredClone(t))), {
      runId: 'run',
      taskset: 'e',
      file: FILE,
      keyer,
      measure: true,
    });
    const rows = new EncodedRows();
    const added = rows.add(encoded, FILE, 0);
    expect(added.tasks).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(added.tasks.map((g) => rows.task(g))).toEqual(tasks);
    expect(added.tasks.map((g) => rows.hashed(g).id)).toEqual(tasks.map((t) => t.id));
  });
});
