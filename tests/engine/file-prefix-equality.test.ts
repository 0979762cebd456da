import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LineFate, scanJsonlPrefix } from '../../bench/engine/duckdb-file-prefix.ts';
import type { Task } from '../../src/core/task.ts';
import { planColumnar } from '../../src/engine/columnar-plan.ts';
import { mapRecords } from '../../src/io/map-records.ts';
import { compileMapping } from '../../src/io/mapping.ts';
import { readDataset } from '../../src/io/reader.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph, type StepSpec } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { PIECES, step, text } from './engine-arbitraries.ts';

// DuckDB reading a JSONL file itself and running the column-wise prefix, against the row path
// (the JSONL reader, the mapping, the operators) on the same random file: every line the engine
// decides has the row path's line number and the same fate (kept with the same texts, or dropped
// by the same step with the same reason); the lines it leaves to the row path are named.

const registry = taskOperatorRegistry();
const LIMITS = { maxLineBytes: 4096, maxDepth: 8 };
let dir: string;
let instance: DuckDBInstance;
let con: DuckDBConnection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'winnow-file-prefix-'));
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  con = await instance.connect();
});
afterAll(() => {
  con?.closeSync();
  instance?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

/** Texts without the pieces that always send a line to the row path (surrogates, U+FEFF). */
const plainText = fc
  .array(fc.constantFrom(...PIECES.filter((p) => !/[\ud800-\udfff\ufeff]/.test(p))), { maxLength: 30 })
  .map((xs) => xs.join(' '));
const anyText = fc.oneof({ weight: 3, arbitrary: plainText }, { weight: 1, arbitrary: text });

/** A line of the file: mostly good records, some hostile ones the reader or the mapping refuses. */
const line = fc.oneof(
  { weight: 12, arbitrary: fc.record({ question: anyText, answer: anyText }).map((r) => JSON.stringify(r)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '   ',
      'not json',
      '[1, 2]',
      '{"question": 3, "answer": "x"}',
      '{"question": "dup a", "question": "dup b", "answer": "x"}',
      '{"question": "lone \\ud800 escape", "answer": "x"}',
      '{"question": "no answer"}',
      '{"question": "   ", "answer": "x"}',
      '{"question": "deep", "answer": "x", "m": [[[[[[[[[[1]]]]]]]]]]}',
      `{"question": "${'long '.repeat(1000)}", "answer": "x"}`,
      '{"question": "crlf  line", "answer": "x"}\r',
    ),
  },
);

async function rowPathFates(file: string, steps: StepSpec[]): Promise<Map<number, LineFate | 'refused'>> {
  const mapping = compileMapping({ taskset: 's', prompt: 'question', answer: 'answer' });
  const nodes = await buildGraph<Task>(steps, { registry, baseDir: '.' });
  const graph = new OperatorGraph<Task>(nodes, { seed: 1, runId: 'r' });
  const names = nodes.map((n) => n.step);
  const fates = new Map<number, LineFate | 'refused'>();
  for await (const batch of readDataset(file, LIMITS)) {
    for (const r of batch.rejected) fates.set(r.row, 'refused');
    const { tasks, rejected } = mapRecords(mapping, batch.records);
    for (const r of rejected) fates.set(r.row!, 'refused');
    const out = await graph.process(tasks);
    for (const t of out.rows)
      fates.set(t.source!.row, { fate: 'kept', prompt: t.prompt!, answer: t.answer ?? null });
    for (const r of out.rejected)
      fates.set(r.row.source!.row, {
        fate: 'dropped',
        step: names.indexOf(r.step),
        reason: r.reason,
        prompt: r.row.prompt!,
        answer: r.row.answer ?? null,
      });
  }
  return fates;
}

async function enginePathFates(file: string, steps: StepSpec[]) {
  const forms = planColumnar(steps, registry);
  const fates = new Map<number, LineFate>();
  for await (const chunk of scanJsonlPrefix(
    con,
    forms,
    file,
    { prompt: 'question', answer: 'answer' },
    LIMITS,
  ))
    for (const [k, n] of chunk.lines.entries()) fates.set(n, chunk.fates[k]!);
  return fates;
}

describe('DuckDB reading the file: the same fates as the row path, line by line', () => {
  it('random files and random column-wise chains', async () => {
    let decided = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 4 }),
        fc.array(line, { maxLength: 30 }),
        fc.boolean(),
        async (steps, lines, trailingNewline) => {
          const file = join(dir, 'in.jsonl');
          writeFileSync(file, lines.join('\n') + (trailingNewline ? '\n' : ''));
          const row = await rowPathFates(file, steps);
          const engine = await enginePathFates(file, steps);
          for (const [n, fate] of engine) {
            if (fate.fate === 'rows') continue;
            decided++;
            expect({ line: n, fate: row.get(n) }).toEqual({ line: n, fate });
          }
          // Every line the row path turned into a task is one the engine numbered the same.
          for (const n of row.keys()) expect(engine.has(n)).toBe(true);
        },
      ),
      { numRuns: 60, seed: 40 },
    );
    // The engine decided a good share of the lines itself (the property is not vacuous; the rest
    // hold characters some step leaves to the row path: CJK, cased non-ASCII, surrogates…).
    expect(decided).toBeGreaterThan(100);
  }, 120_000);

  it('names the lines it leaves to the row path, each with the step to start from', async () => {
    const file = join(dir, 'hostile.jsonl');
    writeFileSync(
      file,
      [
        '{"question": "plain text here", "answer": "a"}',
        '',
        'not json',
        '{"question": "dup a", "question": "dup b", "answer": "x"}',
        '{"question": "lone \\ud800 escape", "answer": "x"}',
        '{"question": "今天天气很好 数据", "answer": "x"}',
      ].join('\n'),
    );
    const steps: StepSpec[] = [
      { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
      { op: 'length_filter', params: { minWords: 1 } },
    ];
    const fates = await enginePathFates(file, steps);
    expect([...fates].map(([n, f]) => [n, f.fate, f.fate === 'rows' ? f.from : null])).toEqual([
      [1, 'kept', null],
      [2, 'rows', 0],
      [3, 'rows', 0],
      [4, 'rows', 0],
      [5, 'rows', 0],
      [6, 'rows', 1],
    ]);
  }, 60_000);
});
