import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { jsonlChunking } from '../../src/io/jsonl-chunks.ts';
import { TaskReportCollector } from '../../src/lifecycle/pipeline/report/collector.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import type { StepSpec } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { OrderedPool } from '../../src/pipeline-workers/ordered-pool.ts';
import { RowStage } from '../../src/pipeline-workers/row-stage.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { step, text } from '../engine/engine-arbitraries.ts';
import { tempDir } from '../helpers/tmp.ts';

// Worker threads that send a JSONL chunk's rows back encoded in the task table's layout (the rest
// of the chain is exact_dedup alone; encoded-chunk.ts) against one thread: random row-wise chains,
// random exact_dedup params, files with CJK, control characters, lone surrogates, unreadable
// lines, rows the mapping rejects, extra columns, repeated ids and texts, tiny chunks and batches.
// Rows, their order, every rejected record (step, file, line, id, reason, payload), the steps'
// counts and the report's summary must be the same.
const dir = tempDir('winnow-encoded-chunks-');

const line = fc.oneof(
  { weight: 12, arbitrary: fc.record({ question: text, answer: fc.option(text, { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ question: text, answer: text, extra: fc.constantFrom(1, 'x', [2]) }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{"broken', '[1, 2]', '', '  ', '{"question": 5}', '{"answer": "a"}'),
  },
);

const dedup = fc.record({
  op: fc.constant('exact_dedup'),
  params: fc.record(
    {
      field: fc.constantFrom('prompt', 'answer', 'all'),
      unicode: fc.constantFrom('NFKC', 'NFC', 'none'),
      lowercase: fc.boolean(),
      stripPunctuation: fc.boolean(),
      whitespace: fc.constantFrom('collapse', 'remove', 'keep'),
      // false: the writer drops repeated ids on the main thread (a recipe's document_deduplicator).
      checkIds: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
});

const scenario = fc.record({
  rows: fc.array(line, { minLength: 20, maxLength: 120 }),
  repeats: fc.array(fc.nat(), { maxLength: 30 }),
  ids: fc.constantFrom('none', 'unique', 'repeated'),
  meta: fc.boolean(),
  steps: fc.array(step, { maxLength: 3 }),
  dedup,
  batchSize: fc.integer({ min: 2, max: 40 }),
  commitRows: fc.integer({ min: 5, max: 200 }),
  chunkBytes: fc.integer({ min: 200, max: 3000 }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** The scenario's file: its rows, then copies of some of them (exact duplicates), with ids as asked. */
function writeFile(s: Scenario, file: string): void {
  const rows = [...s.rows];
  for (const r of s.repeats) if (rows.length > 0) rows.push(rows[r % s.rows.length]!);
  const lines = rows.map((r, i) => {
    if (typeof r === 'string') return r;
    const id = s.ids === 'none' ? {} : { id: s.ids === 'repeated' && i % 5 === 0 ? 'same' : `r${i}` };
    return JSON.stringify({ ...id, ...r });
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

async function run(s: Scenario, file: string, workers: number, db: string) {
  const config = TaskPipelineConfigSchema.parse({
    name: 'encoded',
    workers,
    runsDir: join(db, 'runs'),
    input: { path: file, batchSize: s.batchSize },
    mapping: {
      ...(s.ids === 'none' ? {} : { id: 'id' }),
      prompt: 'question',
      answer: 'answer?',
      taskset: 'e',
      ...(s.meta ? { meta: '*' } : {}),
    },
    operators: [...(s.steps as StepSpec[]), s.dedup],
    output: { commitRows: s.commitRows, maxRejectedShare: 1 },
  });
  const summary = vi.spyOn(TaskReportCollector.prototype, 'summary');
  const report = await runTaskPipeline(config, { baseDir: dir, dbDir: db, registry: taskOperatorRegistry() })
    // A run whose rows were all rejected fails: both ways must fail alike (the message names the db and run).
    .catch((err: Error) => ({ error: err.message.split('; see:')[0]! }));
  const reported = summary.mock.results.at(-1)?.value;
  summary.mockRestore();
  if ('error' in report) return { error: report.error.replaceAll(db, '<db>'), workers: 2 };
  const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) =>
    JSON.stringify([t.id, t.prompt, t.messages, t.answer, t.taskset, t.features, t.meta, t.source]),
  );
  const rejected = (await (await RejectedStore.open(db)).read()).map((r) =>
    JSON.stringify([r.step, r.file, r.row, r.rowId, r.reason, r.payload]),
  );
  const {
    ms: _ms,
    durationMs: _d,
    runId: _r,
    tag: _t,
    dbDir: _db,
    reportFile: _f,
    workerCpuSecs: _cpu,
    workers: w,
    steps,
    ...counts
  } = {
    ...report,
    ms: 0,
  };
  return { tasks, rejected, steps: steps.map(({ ms: _m, ...x }) => x), counts, reported, workers: w };
}

describe('chunks encoded on workers land what one thread lands', () => {
  afterEach(() => {
    jsonlChunking.bytes = 256 << 10;
  });

  it('random row-wise chains ending in exact_dedup, random files (CJK, hostile rows), 2 workers', async () => {
    const encoded = vi.spyOn(RowStage.prototype, 'runEncodedChunk');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const k = n++;
        const file = join(dir, `in-${k}.jsonl`);
        writeFile(s, file);
        jsonlChunking.bytes = s.chunkBytes;
        const one = await run(s, file, 0, join(dir, `db-${k}-0`));
        const calls = encoded.mock.calls.length;
        const two = await run(s, file, 2, join(dir, `db-${k}-2`));
        if ('error' in one) {
          expect(two).toEqual(one);
          return true;
        }
        if ('error' in two) throw new Error(`only the run with workers failed: ${two.error}`);
        expect(two.workers).toBe(2);
        expect(two.tasks).toEqual(one.tasks);
        expect(two.rejected).toEqual(one.rejected);
        expect(two.steps).toEqual(one.steps);
        expect(two.counts).toEqual(one.counts);
        expect(two.reported).toEqual(one.reported);
        expect(one.reported).toBeDefined();
        // A chain whose steps judge the prompt by its profile is read from the bytes instead.
        return encoded.mock.calls.length >= calls;
      }),
      { numRuns: 12, seed: 4040 },
    );
    // Most scenarios went the encoded way (the others were read from their bytes).
    expect(encoded.mock.calls.length).toBeGreaterThan(12);
    encoded.mockRestore();
  }, 1_200_000);

  it('the main thread runs some chunks itself while the worker holds others: the same landing', async () => {
    // Every other chunk finds the worker "busy" (two chunks held) and runs on the main thread:
    // chunks of one file then come back from two threads, interleaved.
    let asked = 0;
    let helped = 0;
    const backlog = vi.spyOn(OrderedPool.prototype, 'leastBacklog', 'get').mockImplementation(() => {
      const busy = asked++ % 2 === 1;
      if (busy) helped++;
      return busy ? 2 : 0;
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const k = n++;
        const file = join(dir, `help-${k}.jsonl`);
        writeFile(s, file);
        jsonlChunking.bytes = s.chunkBytes;
        const one = await run(s, file, 0, join(dir, `help-db-${k}-0`));
        const helpedBefore = helped;
        const mixed = await run(s, file, 1, join(dir, `help-db-${k}-1`));
        if ('error' in one) {
          expect(mixed).toEqual(one);
          return true;
        }
        if ('error' in mixed) throw new Error(`only the run with a worker failed: ${mixed.error}`);
        expect(mixed.workers).toBe(1);
        expect(mixed.tasks).toEqual(one.tasks);
        expect(mixed.rejected).toEqual(one.rejected);
        expect(mixed.steps).toEqual(one.steps);
        expect(mixed.counts).toEqual(one.counts);
        expect(mixed.reported).toEqual(one.reported);
        return helped >= helpedBefore;
      }),
      { numRuns: 10, seed: 4041 },
    );
    backlog.mockRestore();
    // The main thread did run chunks (the others went to the worker).
    expect(helped).toBeGreaterThan(10);
    expect(asked).toBeGreaterThan(2 * helped - 2);
  }, 1_200_000);
});
