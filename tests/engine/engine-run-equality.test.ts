import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

// A whole run on the engine's path (engine: duckdb) against the row path (engine: rows, the
// default): the issue-40 chain over a file without an id column, with HTML, URLs, punctuation runs,
// CJK, cased non-ASCII, control characters, a lone surrogate, unreadable lines and repeats.
const dir = tempDir('winnow-engine-run-');
const PIECES = [
  'what',
  'is',
  'the',
  'cat',
  'a',
  'price',
  'of',
  'eggs',
  '<p>',
  '</b>',
  'https://example.com/q?x=1',
  '!!!???',
  '...',
  '----',
  '***',
  '今天天气很好',
  '数据清洗',
  'ΣΟΦΙΑ',
  'İstanbul',
  'café',
  '\u00a0',
  '\u3000',
  '\t',
  '\n',
  '\n\n',
  '\u200b',
  'a\u200db',
  '\ufeff',
  '\u0007',
  '🍎',
];
const rng = new Rng(40);
const lines: string[] = [];
for (let i = 0; i < 1500; i++) {
  const r = rng.float();
  const words = Array.from({ length: 1 + rng.int(18) }, () => PIECES[rng.int(PIECES.length)]!);
  let q = words.join(rng.float() < 0.2 ? '   ' : ' ');
  if (r < 0.05) q = 'the cat the cat the cat the cat';
  else if (r < 0.08 && lines.length > 0) q = `Question ${i % 7}: what is ${i % 3}?`;
  if (r > 0.995) lines.push('{"not json');
  else if (r > 0.99) lines.push(`{"question": "lone \\ud800 surrogate ${i}", "answer": "1"}`);
  else lines.push(JSON.stringify({ question: q, answer: String(i % 9) }));
}
const file = join(dir, 'qa.jsonl');
writeFileSync(file, `${lines.join('\n')}\n`);

const OPERATORS = [
  { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
  { op: 'length_filter', params: { minChars: 10, maxChars: 2000 } },
  { op: 'special_char_ratio_filter', params: { maxRatio: 0.25 } },
  { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
  { op: 'word_repetition_filter', params: { n: 2, maxRatio: 0.5 } },
  { op: 'exact_dedup' },
];

async function run(engine: 'duckdb' | 'rows') {
  const db = join(dir, `db-${engine}`);
  const config = TaskPipelineConfigSchema.parse({
    name: 'engine',
    engine,
    runsDir: join(db, 'runs'),
    input: { path: file, batchSize: 128 },
    mapping: { prompt: 'question', answer: 'answer', taskset: 'qa' },
    operators: OPERATORS,
    output: { commitRows: 400, maxRejectedShare: 1, report: false },
  });
  const report = await runTaskPipeline(config, { baseDir: dir, dbDir: db, registry: taskOperatorRegistry() });
  const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) => [t.id, t.prompt, t.answer]);
  const rejected = (await (await RejectedStore.open(db)).read()).map((r) => [
    r.step,
    r.file,
    r.row,
    r.rowId,
    r.reason,
  ]);
  const { runId: _r, durationMs: _d, dbDir: _db, tableVersion: _v, tag: _t, engineSteps, ...rest } = report;
  return {
    engineSteps,
    tasks,
    rejected,
    report: { ...rest, steps: report.steps.map(({ ms: _ms, ...s }) => s) },
  };
}

describe('a task pipeline on the engine', () => {
  it('lands the same tasks, rejected records and report as the row path', async () => {
    const rows = await run('rows');
    const engine = await run('duckdb');
    // The five leading steps ran in DuckDB (exact_dedup row-wise after them); none did on the row path.
    expect([engine.engineSteps, rows.engineSteps]).toEqual([5, 0]);
    expect(rows.report.tasksOut).toBeGreaterThan(300);
    // Every step dropped something, so each one's reasons are compared.
    const steps = new Set(rows.rejected.map((r) => r[0]));
    for (const s of [
      'read:jsonl',
      'map',
      'length_filter',
      'special_char_ratio_filter',
      'alnum_ratio_filter',
      'word_repetition_filter',
      'exact_dedup',
    ])
      expect(steps.has(s), `${s} in ${[...steps].join(',')}`).toBe(true);
    expect(engine.tasks).toEqual(rows.tasks);
    expect(engine.rejected).toEqual(rows.rejected);
    expect(engine.report).toEqual(rows.report);
  }, 120_000);
});
