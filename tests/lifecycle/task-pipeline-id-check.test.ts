import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { chainChecksIds } from '../../src/lifecycle/pipeline/task-pipeline-ids.ts';
import type { TaskPipelineEvents } from '../../src/lifecycle/pipeline/task-pipeline-types.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-id-check-');
const registry = taskOperatorRegistry();
// Repeated ids with new text (exact_dedup's id check drops them) and a repeated text under a new id.
const rows = [
  { id: 'a', q: 'What is two plus two?' },
  { id: 'b', q: 'What is three plus three?' },
  { id: 'a', q: 'A different question with the same id' },
  { id: 'c', q: 'what is two plus two' },
  { id: 'd', q: 'What is four plus four?' },
  { id: 'b', q: 'Yet another text for id b' },
];
const input = join(dir, 'rows.jsonl');
writeFileSync(input, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);

let n = 0;
async function run(operators: unknown[], hooks?: Hooks<TaskPipelineEvents>) {
  const db = join(dir, `db${++n}`);
  const config = TaskPipelineConfigSchema.parse({
    name: `ids-${n}`,
    input: { path: input },
    mapping: { taskset: 's', id: 'id', prompt: 'q' },
    operators,
    output: { maxRejectedShare: 1, report: false },
    runsDir: join(dir, 'runs'),
  });
  const report = await runTaskPipeline(config, {
    baseDir: dir,
    dbDir: db,
    registry,
    ...(hooks ? { hooks } : {}),
  });
  const landed = (await (await TaskStore.open(db)).read()).map((t) => t.id).sort();
  const rejected = (await (await RejectedStore.open(db)).read({ runId: report.runId }))
    .map((r) => [r.step, r.row, r.reason])
    .sort((x, y) => Number(x[1]) - Number(y[1]));
  return { landed, rejected, report };
}

describe('the writer’s duplicate-id check when the chain ends with exact_dedup', () => {
  it('is skipped only where exact_dedup (checking ids) is the plain last step', () => {
    const ed = { op: 'exact_dedup' };
    expect(chainChecksIds([ed], registry)).toBe(true);
    expect(chainChecksIds([{ op: 'strip_html' }, ed], registry)).toBe(true);
    expect(chainChecksIds([{ op: 'exact_dedup', params: { checkIds: false } }], registry)).toBe(false);
    expect(chainChecksIds([ed, { op: 'strip_html' }], registry)).toBe(false);
    expect(chainChecksIds([], registry)).toBe(false);
  });

  it('rejects the same rows, at the same step, with the same reasons either way', async () => {
    const last = await run([{ op: 'exact_dedup' }]);
    expect(last.landed).toEqual(['a', 'b', 'd']);
    expect(last.rejected).toEqual([
      ['exact_dedup', 3, 'duplicate id a'],
      ['exact_dedup', 4, 'duplicate of a'],
      ['exact_dedup', 6, 'duplicate id b'],
    ]);
    // A step after exact_dedup keeps the writer's check on: nothing reaches it, so nothing changes.
    const notLast = await run([{ op: 'exact_dedup' }, { op: 'normalize_whitespace' }]);
    expect(notLast.landed).toEqual(last.landed);
    expect(notLast.rejected).toEqual(last.rejected);
    // Without exact_dedup's id check the writer catches the repeated ids, naming the first row.
    const noIds = await run([{ op: 'exact_dedup', params: { checkIds: false } }]);
    expect(noIds.landed).toEqual(['a', 'b', 'd']);
    expect(noIds.rejected).toEqual([
      ['write', 3, `duplicate id a (first written from ${input}:1)`],
      ['exact_dedup', 4, 'duplicate of a'],
      ['write', 6, `duplicate id b (first written from ${input}:2)`],
    ]);
  });

  it('keeps the writer’s check when an afterTaskOps hook may change rows', async () => {
    const hooks = new Hooks<TaskPipelineEvents>();
    // The hook renames 'd' to 'a': only the writer's check can catch that repeat.
    hooks.on('afterTaskOps', (e) => ({
      rows: e.rows.map((t: Task) => (t.id === 'd' ? { ...t, id: 'a' } : t)),
    }));
    const out = await run([{ op: 'exact_dedup' }], hooks);
    expect(out.landed).toEqual(['a', 'b']);
    expect(out.rejected.map((r) => r[0])).toEqual(['exact_dedup', 'exact_dedup', 'write', 'exact_dedup']);
  });
});
