import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { jsonlChunking, jsonlChunks } from '../../src/io/jsonl-chunks.ts';
import { mapRecords } from '../../src/io/map-records.ts';
import { compileMapping } from '../../src/io/mapping.ts';
import { readDataset } from '../../src/io/reader.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { ChunkBatcher } from '../../src/pipeline-workers/chunk-batches.ts';
import { chunkRows, shiftChunkRows } from '../../src/pipeline-workers/jsonl-chunk-rows.ts';
import { autoWorkers, RowStage } from '../../src/pipeline-workers/row-stage.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-jsonl-chunks-');
const WORDS = 'apple basket dozen eggs farmer ﬁsh garden hours café 市场 <b>bold</b> &amp; 🍎 market'.split(
  ' ',
);

/** Lines of every kind the reader handles: good rows, blank and bad lines, CRLF, non-ASCII, repeats. */
function makeLines(n: number, seed: number): string[] {
  const rng = new Rng(seed);
  const texts: string[] = [];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.float();
    const words = Array.from({ length: 1 + rng.int(14) }, () => WORDS[rng.int(WORDS.length)]!);
    let q = words.join(rng.float() < 0.2 ? '  ' : ' ');
    if (rng.float() < 0.08 && i > 0) q = texts[rng.int(texts.length)]!;
    texts.push(q);
    const id = rng.float() < 0.03 ? 'r1' : `r${i}`;
    let line: string;
    if (r < 0.02) line = '{"broken';
    else if (r < 0.03) line = '[1, 2]';
    else if (r < 0.05) line = rng.float() < 0.5 ? '' : '  \t';
    else if (r < 0.07) line = JSON.stringify({ id, answer: 'no question' });
    else if (r < 0.12) line = JSON.stringify({ id, question: q, answer: `${i % 9}`, extra: { k: i } });
    else line = JSON.stringify({ id, question: q, answer: ` <i>${i % 13}</i> ` });
    lines.push(rng.float() < 0.1 ? `${line}\r` : line);
  }
  return lines;
}

const MAPPING = { id: 'id', prompt: 'question', answer: 'answer', taskset: 'w' };

describe('a JSONL file cut into chunks reads as the reader reads it', () => {
  const lines = makeLines(160, 5);
  const file = join(dir, 'prop.jsonl');
  // A BOM first, and no line break after the last line.
  writeFileSync(file, `\ufeff${lines.join('\n')}`);

  async function viaReader(batchSize: number) {
    const mapping = compileMapping(MAPPING);
    const out: unknown[] = [];
    for await (const b of readDataset(file, { batchSize })) {
      const m = mapRecords(mapping, b.records);
      out.push([b.records.length, b.rejected, m.rejected, m.tasks]);
    }
    return out;
  }

  async function viaChunks(batchSize: number, chunkBytes: number) {
    const mapping = compileMapping(MAPPING);
    const graph = new OperatorGraph<Task>([], { seed: 1 });
    const batcher = new ChunkBatcher(file, batchSize, []);
    const out: unknown[] = [];
    const take = (bs: ReturnType<ChunkBatcher['add']>) => {
      for (const b of bs) out.push([b.records, b.readRejected, b.mapRejected, b.tasks]);
    };
    let chunks = 0;
    for await (const { bytes } of jsonlChunks(file, false, chunkBytes)) {
      chunks++;
      const rows = await chunkRows({ bytes, file, maxLineBytes: 64 << 20, maxDepth: 64 }, mapping, graph);
      shiftChunkRows(rows, batcher.lines);
      take(batcher.add(rows, []));
    }
    take(batcher.finish());
    return { out, chunks };
  }

  it('gives the same batches, rows, row numbers and rejections for any chunk size', async () => {
    const expected = new Map<number, unknown[]>();
    for (const b of [1, 7, 64]) expected.set(b, await viaReader(b));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 400 }), fc.constantFrom(1, 7, 64), async (size, batch) => {
        const { out, chunks } = await viaChunks(batch, size);
        expect(chunks).toBeGreaterThan(0);
        expect(out).toEqual(expected.get(batch));
      }),
      { numRuns: 60, seed: 42 },
    );
    // Large chunks too (the whole file in one).
    expect((await viaChunks(7, 1 << 20)).out).toEqual(expected.get(7));
  });
});

describe('a pipeline run reading JSONL in chunks on workers lands what one without workers does', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    jsonlChunking.bytes = 256 << 10;
    jsonlChunking.autoMinBytes = 16 << 20;
  });
  const files = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl')];
  writeFileSync(files[0]!, `\ufeff${makeLines(1300, 11).join('\n')}\n`);
  writeFileSync(files[1]!, makeLines(700, 12).join('\r\n'));

  async function run(workers: number | 'auto', operators: unknown[], db: string, meta: boolean) {
    const config = TaskPipelineConfigSchema.parse({
      name: 'jsonl-chunks',
      workers,
      runsDir: join(db, 'runs'),
      input: { path: files, batchSize: 90 },
      mapping: { ...MAPPING, ...(meta ? { meta: '*' } : {}) },
      operators,
      output: { commitRows: 400, maxRejectedShare: 1, report: false },
    });
    const report = await runTaskPipeline(config, {
      baseDir: dir,
      dbDir: db,
      registry: taskOperatorRegistry(),
    });
    const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) =>
      JSON.stringify([t.id, t.prompt, t.messages, t.answer, t.taskset, t.features, t.meta, t.source]),
    );
    const rejected = (await (await RejectedStore.open(db)).read()).map((r) =>
      JSON.stringify([r.step, r.file, r.row, r.rowId, r.reason, r.payload]),
    );
    return { tasks, rejected, steps: report.steps.map(({ ms: _ms, ...s }) => s), workers: report.workers };
  }

  it('text-only and other row-wise chains, 1, 2 and auto workers, a first and a second run into the same table', async () => {
    const text = [
      { op: 'strip_html', params: { field: 'all' } },
      { op: 'normalize_unicode', params: { form: 'NFKC' } },
      { op: 'normalize_whitespace' },
      { op: 'length_filter', params: { minWords: 3 } },
      { op: 'special_char_ratio_filter', params: { maxRatio: 0.3 } },
      { op: 'exact_dedup' },
    ];
    // Every step judges the prompt: plain rows are read from their bytes (jsonl-fast-rows.ts).
    const prompt = [{ op: 'strip_html' }, ...text.slice(1)];
    const records = [
      { op: 'map_fields', params: { answer: '{answer}!' } },
      { op: 'chunk_text', params: { maxLen: 30 } },
      { op: 'strip_html' },
      { op: 'length_filter', params: { minWords: 2 } },
      { op: 'exact_dedup', params: { checkIds: false } },
      { op: 'near_dedup', params: { threshold: 0.8 } },
    ];
    const chunked = vi.spyOn(RowStage.prototype, 'runChunk');
    const encoded = vi.spyOn(RowStage.prototype, 'runEncodedChunk');
    // Chunks of ~5 KB: each file is several chunks, and batches straddle them.
    jsonlChunking.bytes = 5000;
    // `auto` takes these small files in chunks too; it runs chunks here until its workers have started.
    jsonlChunking.autoMinBytes = 0;
    for (const [name, ops, meta] of [
      ['text', text, false],
      ['text-meta', text, true],
      ['prompt', prompt, false],
      ['records', records, true],
    ] as const) {
      const base = [await run(0, [...ops], join(dir, `${name}-0`), meta)];
      base.push(await run(0, [...ops], join(dir, `${name}-0`), meta));
      expect(chunked).not.toHaveBeenCalled();
      expect(base[0]!.tasks.length).toBeGreaterThan(300);
      expect(base[0]!.rejected.length).toBeGreaterThan(100);
      for (const workers of [1, 2, 'auto'] as const) {
        const db = join(dir, `${name}-${workers}`);
        const got = [await run(workers, [...ops], db, meta), await run(workers, [...ops], db, meta)];
        expect(got[0]!.workers).toBe(workers === 'auto' ? autoWorkers() : workers);
        for (const k of [0, 1]) {
          expect(got[k]!.tasks).toEqual(base[k]!.tasks);
          expect(got[k]!.rejected).toEqual(base[k]!.rejected);
          expect(got[k]!.steps).toEqual(base[k]!.steps);
        }
      }
      // Every worker run read its inputs in chunks; a chain that ends in exact_dedup alone, and whose
      // rows are not read from their bytes, gets them back encoded (encoded-chunk.ts), the others as tasks.
      expect(chunked.mock.calls.length + encoded.mock.calls.length).toBeGreaterThanOrEqual(60);
      expect(encoded.mock.calls.length > 0).toBe(name === 'text' || name === 'text-meta');
      chunked.mockClear();
      encoded.mockClear();
    }
  }, 120_000);
});
