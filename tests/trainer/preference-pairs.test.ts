import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Experience, ExperienceSchema } from '../../src/core/experience.ts';
import {
  buildPreferencePairs,
  countDropReasons,
  PAIR_DROP_REASONS,
} from '../../src/core/preference-pairs.ts';

/** Built through the schema, then the reward set as given (the schema refuses ±Infinity, a trainer may still see it). */
function exp(groupId: string, runIndex: number, reward: number, extra: Partial<Experience> = {}): Experience {
  const row = ExperienceSchema.parse({
    id: `${groupId}-r${runIndex}`,
    taskId: `task-${groupId}`,
    taskset: 'ts',
    groupId,
    runIndex,
    modelVersion: 0,
    exploreStep: 0,
    prompt: `prompt of ${groupId}`,
    response: `answer ${runIndex}`,
    reward: 0,
    ...extra,
  });
  return { ...row, reward };
}

const ids = (e: Experience) => e.id;

describe('buildPreferencePairs: golden cases', () => {
  it('pairs best vs worst reward per group, margin = difference, in order of first row', () => {
    const batch = [
      exp('b', 0, 0.5),
      exp('a', 0, 0.2),
      exp('b', 1, 1),
      exp('a', 1, 0.9),
      exp('b', 2, 0),
      exp('a', 2, 0.4),
    ];
    const { pairs, dropped } = buildPreferencePairs(batch);
    expect(dropped).toEqual([]);
    expect(pairs.map((p) => [p.groupId, p.taskId, p.chosen.id, p.rejected.id, p.margin])).toEqual([
      ['b', 'task-b', 'b-r1', 'b-r2', 1],
      ['a', 'task-a', 'a-r1', 'a-r0', 0.9 - 0.2],
    ]);
    expect(pairs[0]?.prompt).toBe('prompt of b');
    expect(pairs[0]?.messages).toBeUndefined();
  });

  it('copies the chosen rollout messages when present', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const { pairs } = buildPreferencePairs([exp('g', 0, 1, { messages }), exp('g', 1, 0, { messages })]);
    expect(pairs[0]?.messages).toEqual(messages);
  });

  it('breaks ties among equal best/worst rewards by lowest runIndex, then smallest id, whatever the row order', () => {
    const rows = [
      exp('g', 3, 1),
      exp('g', 1, 1),
      exp('g', 2, 0, { id: 'z' }),
      exp('g', 2, 0, { id: 'm' }),
      exp('g', 5, 0),
      exp('g', 4, 0.5),
    ];
    for (const order of [rows, [...rows].reverse()]) {
      const { pairs } = buildPreferencePairs(order);
      expect(pairs.map((p) => [p.chosen.id, p.rejected.id])).toEqual([['g-r1', 'm']]);
    }
  });

  it('drops and records ties, single rollouts, NaN/infinite rewards, mixed tasks and small margins', () => {
    const batch = [
      exp('tie', 0, 0.5),
      exp('tie', 1, 0.5),
      exp('one', 0, 1),
      exp('nan', 0, 1),
      exp('nan', 1, Number.NaN),
      exp('inf', 0, Number.POSITIVE_INFINITY),
      exp('inf', 1, 0),
      exp('mix', 0, 1),
      exp('mix', 1, 0, { taskId: 'other' }),
      exp('small', 0, 0.3),
      exp('small', 1, 0.2),
      exp('ok', 0, 1),
      exp('ok', 1, 0.5),
    ];
    const { pairs, dropped } = buildPreferencePairs(batch, { minMargin: 0.5 });
    expect(pairs.map((p) => [p.groupId, p.margin])).toEqual([['ok', 0.5]]);
    expect(dropped.map((d) => [d.groupId, d.taskId, d.reason])).toEqual([
      ['tie', 'task-tie', 'tie'],
      ['one', 'task-one', 'single_rollout'],
      ['nan', 'task-nan', 'invalid_reward'],
      ['inf', 'task-inf', 'invalid_reward'],
      ['mix', 'task-mix', 'mixed_tasks'],
      ['small', 'task-small', 'below_margin'],
    ]);
    expect(dropped.find((d) => d.groupId === 'nan')?.detail).toBe('rollout nan-r1 has reward NaN');
    expect(countDropReasons(dropped)).toEqual({
      single_rollout: 1,
      invalid_reward: 2,
      mixed_tasks: 1,
      tie: 1,
      below_margin: 1,
    });
  });

  it('minMargin defaults to 0: any positive difference pairs, a tie does not', () => {
    const { pairs, dropped } = buildPreferencePairs([
      exp('g', 0, 1e-9),
      exp('g', 1, 0),
      exp('h', 0, 0),
      exp('h', 1, 0),
    ]);
    expect(pairs.map((p) => p.groupId)).toEqual(['g']);
    expect(dropped.map((d) => d.reason)).toEqual(['tie']);
  });

  it('rejects a negative minMargin', () => {
    expect(() => buildPreferencePairs([], { minMargin: -1 })).toThrow();
  });

  it('an empty batch gives nothing', () => {
    expect(buildPreferencePairs([])).toEqual({ pairs: [], dropped: [] });
  });
});

describe('buildPreferencePairs: properties', () => {
  const rewardArb = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(0, 0.25, 0.5, 1) },
    { weight: 4, arbitrary: fc.double({ min: -5, max: 5, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(Number.NaN) },
  );
  const batchArb = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 6 }), rewardArb), { maxLength: 40 })
    .map((rows) => {
      const counters = new Map<number, number>();
      return rows.map(([g, reward]) => {
        const runIndex = counters.get(g) ?? 0;
        counters.set(g, runIndex + 1);
        return exp(`g${g}`, runIndex, reward);
      });
    });

  it('every pair meets the margin, is best vs worst of its group, and every group appears exactly once', () => {
    fc.assert(
      fc.property(batchArb, fc.constantFrom(0, 0.1, 0.5, 1), (batch, minMargin) => {
        const { pairs, dropped } = buildPreferencePairs(batch, { minMargin });
        const seen = [...pairs.map((p) => p.groupId), ...dropped.map((d) => d.groupId)];
        expect(seen.slice().sort()).toEqual([...new Set(batch.map((e) => e.groupId))].sort());
        for (const d of dropped) expect(PAIR_DROP_REASONS).toContain(d.reason);
        for (const p of pairs) {
          expect(p.margin).toBeGreaterThan(0);
          expect(p.margin).toBeGreaterThanOrEqual(minMargin);
          expect(p.margin).toBe(p.chosen.reward - p.rejected.reward);
          const rewards = batch.filter((e) => e.groupId === p.groupId).map((e) => e.reward);
          expect(p.chosen.reward).toBe(Math.max(...rewards));
          expect(p.rejected.reward).toBe(Math.min(...rewards));
        }
      }),
      { seed: 1313, numRuns: 300 },
    );
  });

  it('the result does not depend on row order', () => {
    fc.assert(
      fc.property(batchArb, fc.integer(), (batch, seed) => {
        const shuffled = fc.sample(fc.shuffledSubarray(batch, { minLength: batch.length }), {
          seed,
          numRuns: 1,
        })[0] as Experience[];
        const a = buildPreferencePairs(batch);
        const b = buildPreferencePairs(shuffled);
        const key = (r: typeof a) => ({
          pairs: r.pairs.map((p) => [p.groupId, ids(p.chosen), ids(p.rejected), p.margin]).sort(),
          dropped: r.dropped.map((d) => [d.groupId, d.reason]).sort(),
        });
        expect(key(b)).toEqual(key(a));
      }),
      { seed: 1314, numRuns: 200 },
    );
  });
});
