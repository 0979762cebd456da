import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashSeed, Rng } from '../../src/core/rng.ts';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';

const CONFIGS: SelectorConfig[] = [
  { type: 'sequential' },
  { type: 'shuffle' },
  { type: 'random' },
  { type: 'offline_easy2hard', params: { feature: 'level' } },
  { type: 'pass_rate' },
  { type: 'bots' },
  { type: 'bots', params: { shortlist: 4, grid: 3 } },
  { type: 'bots', params: { sample: 'mean', tau: 0.3, shortlist: 5 } },
  { type: 'bots', params: { rho: 0, shortlist: 2 } },
  { type: 'shared_ability' },
  { type: 'shared_ability', params: { mode: 'thompson', shortlist: 3, grid: 2 } },
  {
    type: 'mixed',
    params: {
      tasksets: [
        { taskset: 'x', selector: { type: 'bots', params: { shortlist: 2 } } },
        { taskset: 'y', selector: { type: 'shared_ability' } },
      ],
    },
  },
];

function randomView(n: number, seed: number, refs: boolean): SelectorTaskView {
  const rng = new Rng(hashSeed('prop-view', seed));
  const ids = Array.from({ length: n }, (_, k) => `task-${seed}-${k}`);
  const features: Record<string, Float64Array> = { level: Float64Array.from(ids, () => 1 + rng.int(5)) };
  if (refs) {
    features['weak_pass_rate'] = Float64Array.from(ids, () => rng.float() * 0.6);
    features['strong_pass_rate'] = Float64Array.from(features['weak_pass_rate'], (w) =>
      Math.min(1, w + rng.float() * 0.5),
    );
  }
  return {
    ids,
    features,
    domains: ids.map(() => `d${rng.int(3)}`),
    // Both task sets non-empty for the mixing selector.
    tasksets: ids.map((_, k) => (k % 2 === 0 ? 'x' : 'y')),
  };
}

describe('every selector returns n valid, distinct ids whenever n ≤ N', () => {
  for (const config of CONFIGS) {
    it(`${config.type} ${JSON.stringify(config.params ?? {})}`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 2, max: 60 }),
          fc.integer({ min: 0, max: 1e6 }),
          fc.boolean(),
          fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 6 }),
          (n, seed, refs, sizes) => {
            const view = randomView(n, seed, refs);
            const sel = createSelector(config, view, seed);
            const known = new Set(view.ids);
            const rng = new Rng(seed);
            for (const raw of sizes) {
              const want = Math.min(raw, n);
              const ids = sel.select(want);
              expect(ids).toHaveLength(want);
              expect(new Set(ids).size).toBe(want);
              for (const id of ids) expect(known.has(id)).toBe(true);
              sel.feedback(
                ids.map((taskId) => ({ taskId, rewards: [rng.int(2), rng.int(2), rng.float() * 1.2 - 0.1] })),
              );
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  }

  it('a batch larger than the task set still has the requested size (repeats are unavoidable)', () => {
    for (const config of CONFIGS.slice(0, 11)) {
      const sel = createSelector(config, randomView(3, 1, true), 1);
      expect(sel.select(7)).toHaveLength(7);
    }
  });
});
