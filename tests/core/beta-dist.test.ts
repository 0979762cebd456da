import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BetaDistance, betaCdf, betaDensity, betaPeak, logGamma } from '../../src/core/beta-dist.ts';

/** I_x(a, b) for integer a, b: P(at least a successes in a + b − 1 trials of rate x). */
function binomialTail(x: number, a: number, b: number): number {
  const n = a + b - 1;
  let s = 0;
  for (let j = a; j <= n; j++) {
    const logChoose = logGamma(n + 1) - logGamma(j + 1) - logGamma(n - j + 1);
    s += Math.exp(logChoose + j * Math.log(x) + (n - j) * Math.log1p(-x));
  }
  return s;
}

describe('betaCdf', () => {
  it('equals the binomial tail for integer shapes, and the known values', () => {
    expect(betaCdf(0.3, 2, 3)).toBeCloseTo(0.3483, 12);
    expect(betaCdf(0.5, 1, 4)).toBeCloseTo(0.9375, 12);
    expect(betaCdf(0.25, 1, 1)).toBe(0.25);
    expect([betaCdf(0, 2, 2), betaCdf(-1, 2, 2), betaCdf(1, 2, 2)]).toEqual([0, 0, 1]);
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        (x, a, b) => Math.abs(betaCdf(x, a, b) - binomialTail(x, a, b)) < 1e-10,
      ),
    );
  });

  it('is symmetric: I_x(a, b) = 1 − I_{1−x}(b, a), for fractional shapes too', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.05, max: 50, noNaN: true }),
        fc.double({ min: 0.05, max: 50, noNaN: true }),
        (x, a, b) => Math.abs(betaCdf(x, a, b) - (1 - betaCdf(1 - x, b, a))) < 1e-10,
      ),
    );
  });

  it('ln Γ matches factorials and Γ(1/2) = √π', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(11)).toBeCloseTo(Math.log(3628800), 11);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
  });
});

describe('BetaDistance', () => {
  it('uniform prior: the closed form G(d) = 2d near the target, then d + min(γ, 1 − γ)', () => {
    const g = new BetaDistance(1, 1, 0.3);
    expect(g.quantile(0.2)).toBeCloseTo(0.1, 15);
    expect(g.quantile(0.8)).toBeCloseTo(0.5, 15);
    expect(g.cdf(0.1)).toBeCloseTo(0.2, 15);
    expect(g.cdf(0.5)).toBeCloseTo(0.8, 15);
    expect([g.quantile(0), g.quantile(1), g.max]).toEqual([0, 0.7, 0.7]);
  });

  it('the quantile inverts the CDF for any prior and target (to a step of 1e-12 where G is steep)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.2, max: 20, noNaN: true }),
        fc.double({ min: 0.2, max: 20, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        (a, b, target, u) => {
          const g = new BetaDistance(a, b, target);
          const d = g.quantile(u);
          // A U-shaped prior makes G so steep near its ends that one ulp of d moves it by more than
          // 1e-9: ask that u lie between G just below and just above d.
          const below = g.cdf(d - 1e-12);
          const above = g.cdf(d + 1e-12);
          return d >= 0 && d <= g.max && below <= u + 1e-9 && above >= u - 1e-9;
        },
      ),
    );
  });
});

describe('betaDensity and betaPeak', () => {
  it('the density integrates to the CDF, and the peak bounds it (infinite below shape 1)', () => {
    for (const [a, b] of [
      [1, 1],
      [1, 4],
      [3, 1],
      [2.5, 7],
      [40, 12],
    ] as const) {
      // Midpoint rule over [0, 0.6] against I_0.6(a, b).
      const steps = 20_000;
      let area = 0;
      for (let i = 0; i < steps; i++) area += betaDensity(((i + 0.5) / steps) * 0.6, a, b) * (0.6 / steps);
      expect(area).toBeCloseTo(betaCdf(0.6, a, b), 6);
      const peak = betaPeak(a, b);
      for (let i = 0; i <= 1000; i++)
        expect(betaDensity(i / 1000, a, b)).toBeLessThanOrEqual(peak * (1 + 1e-12));
    }
    expect(betaPeak(1, 4)).toBeCloseTo(4, 12);
    expect(betaPeak(0.5, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(betaDensity(1.5, 2, 2)).toBe(0);
  });
});
