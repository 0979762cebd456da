import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import { runTaskPipeline, type TaskPipelineEvents } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { autoWorkers } from '../../src/pipeline-workers/row-stage.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

// One file with every kind of row a run records: unreadable lines, rows the mapping rejects,
// HTML, too-short texts, exact and near duplicates, repeated ids. Small batches, so several are
// in flight on the workers at once and results come back out of order.
const dir = tempDir('winnow-workers-');
const WORDS = 'apple basket dozen eggs farmer garden hours invoice market number orange price ribbon'.split(
  ' ',
);
const rng = new Rng(7);
const texts: string[] = [];
const lines: string[] = [];
for (let i = 0; i < 2400; i++) {
  const r = rng.float();
  let q: string;
  if (r < 0.05 && i > 0) q = texts[rng.int(i)]!.toUpperCase();
  else if (r < 0.09 && i > 0) q = `${texts[rng.int(i)]!} extra`;
  else if (r < 0.12) q = 'too short';
  else {
    const words = Array.from({ length: 30 + rng.int(20) }, () => WORDS[rng.int(WORDS.length)]!);
    q = words.join(' ');
    if (r < 0.15) q = `<p>${q}</p>   <b>!!</b>`;
    else if (r < 0.17) q = `${q} ${'#$%^&*'.repeat(15)}`;
  }
  texts.push(q);
  if (r > 0.995) lines.push('{"not json');
  else if (r > 0.99) lines.push(JSON.stringify({ id: `x${i}`, answer: '1' }));
  else lines.push(JSON.stringify({ id: r > 0.985 ? 'x1' : `x${i}`, question: q, answer: String(i % 7) }));
}
const file = join(dir, 'rows.jsonl');
writeFileSync(file, `${lines.join('\n')}\n`);

const OPERATORS = [
  { op: 'strip_html' },
  { op: 'normalize_whitespace' },
  { op: 'length_filter', params: { minWords: 5 } },
  { op: 'special_char_ratio_filter', params: { maxRatio: 0.2 } },
  { op: 'exact_dedup', params: { checkIds: false } },
  { op: 'near_dedup', params: { threshold: 0.7 } },
];

async function run(
  workers: number | 'auto',
  hooks?: Hooks<TaskPipelineEvents>,
  operators: unknown[] = OPERATORS,
) {
  const db = join(dir, `db-${workers}-${hooks ? 'hooks' : 'plain'}-${operators.length}`);
  const config = TaskPipelineConfigSchema.parse({
    name: 'workers',
    workers,
    runsDir: join(db, 'runs'),
    input: { path: file, batchSize: 97 },
    mapping: { id: 'id', prompt: 'question', answer: 'answer', taskset: 'w' },
    operators,
    output: { commitRows: 500, maxRejectedShare: 1, report: false },
  });
  const report = await runTaskPipeline(config, {
    baseDir: dir,
    dbDir: db,
    registry: taskOperatorRegistry(),
    ...(hooks ? { hooks } : {}),
  });
  const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) => [t.id, t.prompt, t.answer]);
  const rejected = (await (await RejectedStore.open(db)).read()).map((r) => [
    r.step,
    r.row,
    r.rowId,
    r.reason,
  ]);
  const steps = report.steps.map(({ ms: _ms, ...s }) => s);
  return {
    tasks,
    rejected,
    steps,
    warnings: report.warnings,
    tasksOut: report.tasksOut,
    workers: report.workers,
  };
}

describe('pipeline workers', () => {
  it('land the same rows, in the same order, with the same rejected records as one thread', async () => {
    const one = await run(0);
    const two = await run(2);
    const auto = await run('auto');
    expect([one.workers, two.workers, auto.workers]).toEqual([0, 2, autoWorkers()]);
    expect(one.tasksOut).toBeGreaterThan(1500);
    expect(one.rejected.length).toBeGreaterThan(300);
    // Every kind of rejection is there, so the comparison covers each path.
    const kinds = new Set(one.rejected.map((r) => String(r[0]).split(':')[0]));
    expect([...kinds].sort()).toEqual(
      [
        'exact_dedup',
        'length_filter',
        'map',
        'near_dedup',
        'read',
        'special_char_ratio_filter',
        'write',
      ].sort(),
    );
    for (const other of [two, auto]) {
      expect(other.tasks).toEqual(one.tasks);
      expect(other.rejected).toEqual(one.rejected);
      expect(other.steps).toEqual(one.steps);
      expect(other.warnings).toEqual(one.warnings);
    }
  }, 60_000);

  it('keep the order when an afterIngest hook maps on the main thread first', async () => {
    const hooks = () => {
      const h = new Hooks<TaskPipelineEvents>();
      h.on('afterIngest', (e) => ({
        drop: e.rows.filter((t) => t.id.endsWith('3')).map((row) => ({ row, reason: 'ends in 3' })),
      }));
      return h;
    };
    const one = await run(0, hooks());
    const two = await run(2, hooks());
    expect(two.tasks).toEqual(one.tasks);
    expect(two.rejected).toEqual(one.rejected);
    expect(one.tasks.some((t) => String(t[0]).endsWith('3'))).toBe(false);
    expect(one.rejected.filter((r) => r[3] === 'ends in 3').length).toBeGreaterThan(100);
  }, 60_000);

  it('run a user module and the steps after it on the main thread, with a note, and the same output', async () => {
    const withModule = [
      { op: 'strip_html' },
      { module: join(import.meta.dirname, 'fixtures', 'shout-operator.ts'), export: 'shout' },
      { op: 'length_filter', params: { minWords: 5 } },
      { op: 'exact_dedup' },
    ];
    const one = await run(0, undefined, withModule);
    const two = await run(2, undefined, withModule);
    expect(two.workers).toBe(2);
    expect(two.tasks).toEqual(one.tasks);
    expect(two.rejected).toEqual(one.rejected);
    expect(String(one.tasks[0]![1])).toBe(String(one.tasks[0]![1]).toUpperCase());
    expect(one.warnings.filter((w) => w.startsWith('workers:'))).toEqual([]);
    expect(two.warnings.filter((w) => w.startsWith('workers:'))).toEqual([
      `workers: step 2 (module ${withModule[1]!.module}) and the steps after it run on the main thread: only built-in row-wise operators run in workers`,
    ]);
  }, 60_000);
});
