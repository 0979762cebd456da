import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { MixedSelector } from '../../src/selectors/mixed.ts';
import { createSelector } from '../../src/selectors/registry.ts';
import { SequentialSelector } from '../../src/selectors/sequential.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';

function view(sets: Record<string, number>, ids?: (set: string, i: number) => string): SelectorTaskView {
  const out: SelectorTaskView = { ids: [], features: {}, tasksets: [] };
  const idList: string[] = [];
  const tasksets: string[] = [];
  for (const [set, count] of Object.entries(sets))
    for (let i = 0; i < count; i++) {
      idList.push(ids ? ids(set, i) : `${set}-${i}`);
      tasksets.push(set);
    }
  out.ids = idList;
  out.tasksets = tasksets;
  return out;
}

const setOf = (id: string) => id.split('-')[0]!;

describe('mixed: how many tasks each task set gets', () => {
  it('explicit weights: carried remainders keep every prefix within one task of the exact share', () => {
    const sel = createSelector(
      {
        type: 'mixed',
        params: {
          tasksets: [
            { taskset: 'a', weight: 5, selector: { type: 'sequential' } },
            { taskset: 'b', weight: 3, selector: { type: 'shuffle' } },
            { taskset: 'c', weight: 2, selector: { type: 'random' } },
          ],
        },
      },
      view({ a: 40, b: 40, c: 40 }),
      3,
    );
    const totals: Record<string, number> = { a: 0, b: 0, c: 0 };
    const quotas: string[] = [];
    for (let step = 1; step <= 100; step++) {
      const ids = sel.select(7);
      expect(ids).toHaveLength(7);
      const q: Record<string, number> = { a: 0, b: 0, c: 0 };
      for (const id of ids) q[setOf(id)]!++;
      quotas.push(`${q['a']}${q['b']}${q['c']}`);
      for (const s of ['a', 'b', 'c']) totals[s]! += q[s]!;
      expect(Math.abs(totals['a']! - 7 * step * 0.5)).toBeLessThan(1);
      expect(Math.abs(totals['b']! - 7 * step * 0.3)).toBeLessThan(1);
      expect(Math.abs(totals['c']! - 7 * step * 0.2)).toBeLessThan(1);
    }
    // Exact shares every 10 batches (70 tasks = 35 + 21 + 14).
    expect(totals).toEqual({ a: 350, b: 210, c: 140 });
    // The first batches' quotas (a, b, c). Batch 1: credits 3.5, 2.1, 1.4 → 3, 2, 1 plus the spare
    // to a (largest remainder). Batch 5: credits 3.5, 2.5, 1.0 tie a and b; the seeded order picks b.
    expect(quotas.slice(0, 6)).toEqual(['421', '322', '421', '322', '331', '421']);
  });

  it('no weights: task sets mix in proportion to their sizes', () => {
    const sel = new MixedSelector(
      [
        { taskset: 'big', selector: new SequentialSelector(1) },
        { taskset: 'small', selector: new SequentialSelector(2) },
      ],
      5,
    );
    sel.init(view({ big: 30, small: 10 }));
    expect(sel.shares()).toEqual({ big: 0.75, small: 0.25 });
    const ids = Array.from({ length: 10 }, () => sel.select(4)).flat();
    expect(ids.filter((id) => setOf(id) === 'big')).toHaveLength(30);
  });

  it('weights for some task sets but not others is a config error', () => {
    expect(() =>
      createSelector(
        {
          type: 'mixed',
          params: {
            tasksets: [
              { taskset: 'a', weight: 1, selector: { type: 'random' } },
              { taskset: 'b', selector: { type: 'random' } },
            ],
          },
        },
        view({ a: 2, b: 2 }),
        1,
      ),
    ).toThrow(ConfigError);
  });
});

describe('mixed: feedback goes to the selector of the task’s set', () => {
  it('routes by id, or by taskset when ids collide across sets', () => {
    const fresh = createSelector(
      {
        type: 'mixed',
        params: {
          tasksets: [
            { taskset: 'a', weight: 1, selector: { type: 'bots' } },
            { taskset: 'b', weight: 1, selector: { type: 'pass_rate' } },
          ],
        },
      },
      view({ a: 3, b: 3 }, (set, i) => (i === 0 ? 'shared' : `${set}-${i}`)),
      1,
    );
    const uninitialised = new MixedSelector([{ taskset: 'a', selector: new SequentialSelector(1) }], 1);
    expect(() => uninitialised.select(1)).toThrow(/init/);
    const r = fresh.feedback([
      { taskId: 'a-1', rewards: [1, 0] },
      { taskId: 'b-2', rewards: [1, 1, 1] },
      { taskId: 'shared', rewards: [1] },
      { taskId: 'shared', taskset: 'b', rewards: [0, 0] },
      { taskId: 'nowhere', rewards: [1] },
    ]);
    expect(r.groups).toBe(3);
    expect(r.rewards).toBe(7);
    expect(r.unknownTasks).toBe(2);
    expect(r.warnings.join('\n')).toMatch(/'shared' is in several task sets/);
    expect(r.warnings.join('\n')).toMatch(/'nowhere' is not in any mixed task set/);
    const p = fresh.predict!(['b-2', 'a-1', 'nowhere']);
    expect(p[0]).toBeGreaterThan(0.5); // b-2 solved 3/3
    expect(Number.isNaN(p[2])).toBe(true);
    expect(fresh.report().groups).toBe(3);
  });

  it('tasks of an unlisted task set are ignored with a notice; new ones of an unlisted set are an error', () => {
    const sel = createSelector(
      { type: 'mixed', params: { tasksets: [{ taskset: 'a', selector: { type: 'random' } }] } },
      view({ a: 3, z: 2 }),
      1,
    );
    expect(sel.report().notices.join('\n')).toMatch(/2 task\(s\) of task set 'z' ignored/);
    expect(sel.select(3).every((id) => setOf(id) === 'a')).toBe(true);
    expect(() => sel.addTasks!(view({ z: 1 }, () => 'z-new'))).toThrow(ConfigError);
    sel.addTasks!(view({ a: 1 }, () => 'a-new'));
    expect(sel.select(4).sort()).toEqual(['a-0', 'a-1', 'a-2', 'a-new']);
  });
});
