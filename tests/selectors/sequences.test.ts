import { describe, expect, it } from 'vitest';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import { epochPermutation, permutationParity } from '../../src/selectors/shuffle.ts';
import { feedbackFor, tinyView } from './fixtures/tiny.ts';

/** Six steps of select(4) + feedback on the ten-task fixture, seed 42, as task numbers. */
function run(config: SelectorConfig, steps = 6, n = 4, view = tinyView()): number[][] {
  const sel = createSelector(config, view, 42);
  const out: number[][] = [];
  for (let s = 0; s < steps; s++) {
    const ids = sel.select(n, { step: s });
    out.push(ids.map((id) => Number(id.slice(1))));
    sel.feedback(feedbackFor(ids, s), { step: s });
  }
  return out;
}

// Generated once from the implementation, then checked by the reasoning in each test.
const EXPECTED: Record<string, [SelectorConfig, number[][]]> = {
  sequential: [
    { type: 'sequential' },
    [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 0, 1],
      [2, 3, 4, 5],
      [6, 7, 8, 9],
      [0, 1, 2, 3],
    ],
  ],
  shuffle: [
    { type: 'shuffle' },
    [
      [6, 0, 4, 7],
      [3, 8, 1, 2],
      [5, 9, 8, 7],
      [6, 5, 2, 4],
      [0, 3, 9, 1],
      [7, 9, 2, 6],
    ],
  ],
  random: [
    { type: 'random' },
    [
      [2, 5, 8, 9],
      [6, 0, 3, 9],
      [3, 7, 8, 6],
      [4, 2, 3, 7],
      [4, 6, 7, 9],
      [2, 0, 7, 9],
    ],
  ],
  offline_easy2hard: [
    {
      type: 'offline_easy2hard',
      params: {
        keys: [
          { feature: 'level', order: 'asc' },
          { feature: 'strong_pass_rate', order: 'desc' },
        ],
      },
    },
    [
      [5, 0, 7, 2],
      [4, 9, 1, 6],
      [8, 3, 5, 0],
      [7, 2, 4, 9],
      [1, 6, 8, 3],
      [5, 0, 7, 2],
    ],
  ],
  pass_rate: [
    { type: 'pass_rate' },
    [
      [9, 1, 0, 8],
      [1, 7, 5, 4],
      [2, 6, 3, 4],
      [4, 1, 7, 2],
      [4, 7, 1, 9],
      [4, 1, 7, 9],
    ],
  ],
  bots: [
    { type: 'bots' },
    [
      [0, 7, 2, 3],
      [1, 7, 9, 5],
      [6, 8, 9, 7],
      [1, 4, 9, 7],
      [4, 1, 7, 2],
      [4, 1, 7, 5],
    ],
  ],
  bots_mean: [
    { type: 'bots', params: { sample: 'mean' } },
    [
      [0, 1, 2, 3],
      [1, 5, 8, 4],
      [4, 9, 1, 7],
      [7, 4, 6, 2],
      [4, 7, 6, 1],
      [4, 7, 1, 6],
    ],
  ],
  bots_softmax: [
    { type: 'bots', params: { tau: 0.1 } },
    [
      [0, 2, 9, 7],
      [4, 2, 5, 3],
      [8, 2, 7, 6],
      [7, 9, 1, 6],
      [1, 9, 0, 3],
      [4, 2, 1, 9],
    ],
  ],
  shared_ability: [
    // First batch: every weight starts at 0, so the tasks whose reference rates are closest to 0.5
    // (smallest ℓweak² + ℓstrong², hence least prior variance) come first: 1, 8, 5, 4.
    { type: 'shared_ability' },
    [
      [1, 8, 5, 4],
      [4, 1, 7, 8],
      [4, 7, 1, 5],
      [7, 4, 5, 1],
      [7, 4, 1, 5],
      [1, 4, 7, 9],
    ],
  ],
  shared_ability_thompson: [
    { type: 'shared_ability', params: { mode: 'thompson' } },
    [
      [6, 8, 2, 9],
      [5, 6, 1, 3],
      [9, 2, 5, 6],
      [2, 7, 3, 1],
      [7, 5, 0, 9],
      [1, 4, 2, 5],
    ],
  ],
};

describe('exact index sequences (ten tasks, select(4) × 6, seed 42)', () => {
  for (const [name, [config, expected]] of Object.entries(EXPECTED)) {
    it(name, () => {
      expect(run(config)).toEqual(expected);
    });
  }

  it('sequential wraps after the last task', () => {
    expect(run({ type: 'sequential' }).flat().slice(8, 12)).toEqual([8, 9, 0, 1]);
  });

  it('shuffle: every epoch is a permutation of all tasks and consecutive epochs differ', () => {
    const flat = run({ type: 'shuffle' }).flat();
    const e0 = flat.slice(0, 10);
    const e1 = flat.slice(10, 20);
    expect([...e0].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...e1].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(e0).not.toEqual(e1);
    // The visiting order is the epoch permutation drawn from (seed, epoch) alone.
    expect(Array.from(epochPermutation(42, 0, 10))).toEqual(e0);
    expect(Array.from(epochPermutation(42, 1, 10))).toEqual(e1);
  });

  it('shuffle: epoch e has parity e mod 2, so consecutive epochs can never share a permutation', () => {
    for (let e = 0; e < 50; e++) expect(permutationParity(epochPermutation(7, e, 2))).toBe(e & 1);
    // With two tasks there are only two permutations: the epochs alternate between them.
    const two = run({ type: 'shuffle' }, 6, 2, tinyView(2));
    for (let i = 1; i < two.length; i++) expect(two[i]).not.toEqual(two[i - 1]);
  });

  it('shuffle: a batch crossing an epoch boundary never repeats a task; the deferred one leads the next batch', () => {
    const batches = run({ type: 'shuffle' }, 8, 4, tinyView(5));
    // Epoch permutations for seed 42, five tasks: e0 2,1,3,0,4  e1 3,2,4,0,1  e2 1,3,4,2,0  e3 4,1,2,3,0.
    // Batch 2 takes 4 (end of e0) then 3,2,0 from e1, deferring e1's 4; batch 3 starts with that 4.
    expect(batches).toEqual([
      [2, 1, 3, 0],
      [4, 3, 2, 0],
      [4, 1, 3, 2],
      [1, 4, 0, 2],
      [4, 1, 3, 0],
      [4, 2, 0, 1],
      [3, 0, 1, 2],
      [4, 3, 0, 2],
    ]);
    for (const b of batches) expect(new Set(b).size).toBe(4);
    // Deferral only reorders within the stream: every run of five is one whole epoch.
    const flat = batches.flat();
    for (let e = 0; e < 6; e++) expect([...flat.slice(5 * e, 5 * e + 5)].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('offline_easy2hard: level ascending, ties by strong pass rate descending', () => {
    const order = run(EXPECTED['offline_easy2hard']![0], 3).flat().slice(0, 10);
    const view = tinyView();
    const level = view.features['level']!;
    for (let i = 1; i < order.length; i++)
      expect(level[order[i]!]!).toBeGreaterThanOrEqual(level[order[i - 1]!]!);
    expect(order.slice(0, 2)).toEqual([5, 0]); // both level 1; task 5's strong rate 0.6 > task 0's 0.2
  });
});
