import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { SumTree } from '../../src/core/sum-tree.ts';
import { drawDistinctWeighted } from '../../src/core/weighted-draws.ts';

function tree(weights: number[]): SumTree {
  const t = new SumTree();
  t.reset(weights.length, (i) => weights[i]!);
  return t;
}

/** The reference: Gumbel-top-k (the k largest log w + Gumbel noise), the draws' exact distribution. */
function gumbelTopK(rng: Rng, weights: number[], k: number): number[] {
  const keys = weights.map((w, i) => {
    let u = rng.float();
    while (u === 0) u = rng.float();
    return { i, key: Math.log(w) - Math.log(-Math.log(u)) };
  });
  return keys
    .sort((x, y) => y.key - x.key)
    .slice(0, k)
    .map((x) => x.i);
}

/** How often each index is drawn first and how often it is among the k, over `trials` draws. */
function frequencies(draw: () => number[], size: number, trials: number) {
  const first = new Float64Array(size);
  const within = new Float64Array(size);
  for (let t = 0; t < trials; t++) {
    const got = draw();
    first[got[0]!]! += 1 / trials;
    for (const i of got) within[i]! += 1 / trials;
  }
  return { first, within };
}

describe('drawDistinctWeighted', () => {
  it('draws k distinct indices with the distribution of Gumbel-top-k (successive sampling)', () => {
    const weights = [5, 1, 1, 0.5, 3, 0.1, 2, 2];
    const t = tree(weights);
    const a = new Rng(11);
    const b = new Rng(12);
    const fast = frequencies(() => drawDistinctWeighted(a, t, weights.length, 3), 8, 6000);
    const ref = frequencies(() => gumbelTopK(b, weights, 3), 8, 6000);
    const total = weights.reduce((x, y) => x + y, 0);
    for (let i = 0; i < 8; i++) {
      // The first draw is ∝ weight; inclusion matches the reference (4σ ≈ 0.026 at 6,000 trials).
      expect(Math.abs(fast.first[i]! - weights[i]! / total)).toBeLessThan(0.026);
      expect(Math.abs(fast.within[i]! - ref.within[i]!)).toBeLessThan(0.04);
    }
  });

  it('returns every index once when k ≥ size, and the same sequence for the same seed', () => {
    const t = tree([1, 2, 3, 4]);
    expect([...drawDistinctWeighted(new Rng(3), t, 4, 9)].sort()).toEqual([0, 1, 2, 3]);
    expect(drawDistinctWeighted(new Rng(5), t, 4, 3)).toEqual(drawDistinctWeighted(new Rng(5), t, 4, 3));
  });

  it('finishes by a scan when one index holds nearly all the weight, and uniformly over zero weights', () => {
    const heavy = [1e12, 1, 1, 1, 0, 0];
    const t = tree(heavy);
    const counts = new Float64Array(6);
    const rng = new Rng(7);
    for (let r = 0; r < 3000; r++) {
      const got = drawDistinctWeighted(rng, t, 6, 6);
      expect(got[0]).toBe(0);
      expect(new Set(got).size).toBe(6);
      // Indices 1–3 come before the weightless 4 and 5.
      expect(new Set(got.slice(1, 4))).toEqual(new Set([1, 2, 3]));
      counts[got[4]!]!++;
    }
    // 4 and 5 are equally likely to come first among the weightless.
    expect(Math.abs(counts[4]! / 3000 - 0.5)).toBeLessThan(0.04);
  });
});
