import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passAtK, scoreSet } from '../../src/lifecycle/run/evaluation/pass-at-k.ts';

/** C(n, k) by the multiplicative formula (exact for the small numbers used here). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('pass@k (unbiased estimator)', () => {
  it('golden values worked out by hand: 1 − C(n−c, k) / C(n, k)', () => {
    // n=5, c=2, k=2: 1 − C(3,2)/C(5,2) = 1 − 3/10.
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 14);
    // n=10, c=3, k=5: 1 − C(7,5)/C(10,5) = 1 − 21/252 = 11/12.
    expect(passAtK(10, 3, 5)).toBeCloseTo(11 / 12, 14);
    // n=6, c=2, k=3: 1 − C(4,3)/C(6,3) = 1 − 4/20.
    expect(passAtK(6, 2, 3)).toBeCloseTo(0.8, 14);
    // n=3, c=1, k=1: pass@1 is the share correct.
    expect(passAtK(3, 1, 1)).toBeCloseTo(1 / 3, 14);
    // n=4, c=1, k=2: 1 − C(3,2)/C(4,2) = 1 − 3/6.
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 14);
    // n = k: "any correct".
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(4, 1, 4)).toBe(1);
    expect(passAtK(4, 4, 4)).toBe(1);
    // Fewer wrong samples than k: certain.
    expect(passAtK(5, 3, 3)).toBe(1);
  });

  it('golden values for n > k, from exact fractions (Python fractions + math.comb)', () => {
    // 1 − C(199,100)/C(200,100) = 1/2 exactly.
    expect(passAtK(200, 1, 100)).toBeCloseTo(0.5, 14);
    expect(passAtK(100, 10, 10)).toBeCloseTo(1053605815867 / 1573664496040, 14);
    expect(passAtK(20, 3, 5)).toBeCloseTo(137 / 228, 14);
    expect(passAtK(1000, 7, 50)).toBeCloseTo(32643197292643 / 107933671364885, 13);
    expect(passAtK(16, 4, 8)).toBeCloseTo(25 / 26, 14);
    // A set scored from n = 5 samples for pass@2: c = 2 → 1 − C(3,2)/C(5,2) = 0.7; c = 0 → 0.
    expect(
      scoreSet(
        [
          [1, 0, 1, 0, 0],
          [0, 0, 0, 0, 0],
        ],
        2,
        1,
        5,
      ),
    ).toEqual({ tasks: 2, meanAtK: 2 / 10, passAtK: (1 - 3 / 10) / 2 });
    expect(() => scoreSet([[1, 0]], 2, 1, 5)).toThrow('a task has 2 sample(s) where n = 5 were expected');
  });

  it('matches the binomial formula for every n ≤ 12', () => {
    for (let n = 1; n <= 12; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++)
          expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
  });

  it('refuses impossible arguments with the numbers named', () => {
    expect(() => passAtK(3, 1, 4)).toThrow('pass@k needs 1 ≤ k ≤ n and 0 ≤ c ≤ n (n=3, c=1, k=4)');
    expect(() => passAtK(3, 4, 1)).toThrow('(n=3, c=4, k=1)');
    expect(() => passAtK(3, 1, 1.5)).toThrow('pass@k needs integers');
  });

  it('property: monotone (non-decreasing) in k, and pass@1 = c/n = mean@1', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 60 })
          .chain((n) =>
            fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })),
          ),
        ([n, c, k]) => {
          const p = passAtK(n, c, k);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1);
          if (k < n) expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(p - 1e-12);
          expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 12);
        },
      ),
      { seed: 20, numRuns: 400 },
    );
  });

  it('property: at k = 1 a set’s pass@1 equals its mean@1 for 0/1 rewards', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 1), { minLength: 1, maxLength: 40 }), (rewards) => {
        const s = scoreSet(
          rewards.map((r) => [r]),
          1,
        );
        expect(s.passAtK).toBeCloseTo(s.meanAtK, 12);
      }),
      { seed: 21, numRuns: 200 },
    );
  });
});

describe('scoreSet', () => {
  it('mean@k over every sample, pass@k over tasks; non-finite rewards count 0; correctAt sets what counts as correct', () => {
    const s = scoreSet(
      [
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [1, 1, 1, 1],
      ],
      4,
    );
    expect(s).toEqual({ tasks: 4, meanAtK: 7 / 16, passAtK: 0.75 });
    expect(scoreSet([[Number.NaN, 0.5]], 2)).toEqual({ tasks: 1, meanAtK: 0.25, passAtK: 0 });
    expect(scoreSet([[Number.NaN, 0.5]], 2, 0.5)).toEqual({ tasks: 1, meanAtK: 0.25, passAtK: 1 });
    expect(() => scoreSet([[1, 0, 1]], 4)).toThrow('a task has 3 sample(s) where n = 4 were expected');
    expect(Number.isNaN(scoreSet([], 4).passAtK)).toBe(true);
  });
});
