import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import type { Task } from '../../src/core/task.ts';
import { buildSelector, createSelector, selectorRegistry } from '../../src/selectors/registry.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import type { SelectorState } from '../../src/selectors/types.ts';

/** Three near-identical tasks (a), two alike (b), one unlike the rest (c); ids in this order. */
const VECTORS: Record<string, number[]> = {
  a1: [1, 0, 0],
  a2: [0.99, 0.1, 0],
  a3: [0.98, 0.15, 0],
  b1: [0, 1, 0],
  b2: [0.1, 0.99, 0],
  c1: [0, 0, 1],
};
const tasks: Task[] = Object.entries(VECTORS).map(([id, v]) => ({
  id,
  taskset: 't',
  prompt: id,
  features: { difficulty: id.charCodeAt(0) },
  meta: { embedding: v },
}));
const view = taskViewFromTasks(tasks);
const diverse = (inner: string, params: Record<string, unknown> = {}, seed = 7) =>
  createSelector({ type: 'diverse', params: { selector: { type: inner }, ...params } }, view, seed);

describe('diverse (maximal marginal relevance over any selector)', () => {
  it('the task view carries meta.embedding as a vector column', () => {
    expect(Object.keys(view.vectors ?? {})).toEqual(['meta.embedding']);
    expect(view.vectors!['meta.embedding']![3]).toEqual([0, 1, 0]);
  });

  it('golden: over sequential, pool 2, lambda 0.5 — the near copies a2, a3 are passed over', () => {
    const s = diverse('sequential', { pool: 2 });
    // Candidates a1 a2 a3 b1 → a1, then b1 (0.5·0.25 − 0 beats a2's 0.5·0.75 − 0.5·0.995).
    expect(s.select(2)).toEqual(['a1', 'b1']);
    // Candidates b2 c1 a1 a2 → b2, then c1 (unlike b2).
    expect(s.select(2)).toEqual(['b2', 'c1']);
    expect(s.report().selected).toBe(4);
  });

  it('lambda 1 keeps the inner order; lambda 0 spreads out as far as it can', () => {
    expect(diverse('sequential', { pool: 3, lambda: 1 }).select(3)).toEqual(['a1', 'a2', 'a3']);
    expect(diverse('sequential', { pool: 3, lambda: 0 }).select(3)).toEqual(['a1', 'b1', 'c1']);
    expect(diverse('sequential', { pool: 3 }).select(3)).toEqual(['a1', 'b1', 'c1']);
  });

  it('seeded and deterministic over a random inner selector; the state round-trips through JSON', () => {
    const a = diverse('shuffle', { pool: 3 }, 11);
    const b = diverse('shuffle', { pool: 3 }, 11);
    const seqA = [a.select(2), a.select(2), a.select(2)];
    expect([b.select(2), b.select(2), b.select(2)]).toEqual(seqA);
    const saved = JSON.parse(JSON.stringify(a.state())) as SelectorState;
    expect(saved.type).toBe('diverse');
    const resumed = diverse('shuffle', { pool: 3 }, 11);
    resumed.load(saved);
    expect([resumed.select(2), resumed.select(2)]).toEqual([a.select(2), a.select(2)]);
    expect(resumed.report().selectCalls).toBe(5);
  });

  it('feedback and predictions are the inner selector’s', () => {
    const s = diverse('pass_rate');
    const report = s.feedback([{ taskId: 'a1', rewards: [1, 0] }]);
    expect([report.groups, report.rewards, report.mixedGroups]).toEqual([1, 2, 1]);
    const inner = createSelector({ type: 'pass_rate' }, view, 7);
    inner.feedback([{ taskId: 'a1', rewards: [1, 0] }]);
    expect(Array.from(s.predict!(['a1', 'b1']))).toEqual(Array.from(inner.predict!(['a1', 'b1'])));
  });

  it('config errors: tasks without embeddings, a bad key, an unknown inner selector', () => {
    const plain = taskViewFromTasks(tasks.map((t) => ({ ...t, meta: {} })));
    expect(() =>
      createSelector({ type: 'diverse', params: { selector: { type: 'sequential' } } }, plain, 1),
    ).toThrow(
      "selector.params.embedding: no task carries the embedding 'meta.embedding' (run the embed operator in the task pipeline (it writes meta.embedding), or name the meta key it wrote)",
    );
    expect(() =>
      buildSelector({ type: 'diverse', params: { selector: { type: 'x' }, embedding: 'emb' } }, 1),
    ).toThrow(ConfigError);
    expect(() => buildSelector({ type: 'diverse', params: { selector: { type: 'sequentail' } } }, 1)).toThrow(
      /selector\.params\.selector\.type.*sequential/,
    );
    expect(selectorRegistry().names()).toContain('diverse');
  });
});
