import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { betaCdf, betaDensity } from '../../src/core/beta-dist.ts';
import { betaDensityBound, betaInWindow, betaMass, betaTailBound } from '../../src/core/beta-window.ts';

const unit = fc.double({ min: 0.001, max: 0.999, noNaN: true });

describe('Beta window bounds', () => {
  it('the density bound is never below the density anywhere in the window and the mean range', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.3, max: 200, noNaN: true }),
        unit,
        unit,
        unit,
        unit,
        unit,
        unit,
        (s, m1, m2, w1, w2, u, v) => {
          const [mu1, mu2] = [Math.min(m1, m2), Math.max(m1, m2)];
          const [x1, x2] = [Math.min(w1, w2), Math.max(w1, w2)];
          const bound = betaDensityBound(s, mu1, mu2, x1, x2);
          const mu = mu1 + u * (mu2 - mu1);
          const x = x1 + v * (x2 - x1);
          expect(betaDensity(x, mu * s, (1 - mu) * s)).toBeLessThanOrEqual(bound);
          // Also at the corners, where a maximum over a box often sits.
          for (const m of [mu1, mu2])
            for (const y of [x1, x2]) expect(betaDensity(y, m * s, (1 - m) * s)).toBeLessThanOrEqual(bound);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the tail bound is never below the mass beyond the mean ± t', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 300, noNaN: true }),
        fc.double({ min: 0.05, max: 300, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b, t) => {
          const mean = a / (a + b);
          const bound = betaTailBound(a + b, t);
          expect(1 - betaCdf(mean + t, a, b)).toBeLessThanOrEqual(bound + 1e-12);
          expect(betaCdf(mean - t, a, b)).toBeLessThanOrEqual(bound + 1e-12);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a draw conditioned on the window splits its mass u : 1 − u, also deep in either tail', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 100, noNaN: true }),
        fc.double({ min: 0.5, max: 100, noNaN: true }),
        unit,
        fc.double({ min: 0.0001, max: 0.3, noNaN: true }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (a, b, c, w, u) => {
          const x1 = Math.max(0, c - w);
          const x2 = Math.min(1, c + w);
          const mass = betaMass(a, b, x1, x2);
          if (!(mass > 1e-280)) return;
          const x = betaInWindow(a, b, x1, x2, u);
          expect(x).toBeGreaterThanOrEqual(x1);
          expect(x).toBeLessThanOrEqual(x2);
          expect(Math.abs(betaMass(a, b, x1, x) / mass - u)).toBeLessThan(1e-6);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('betaMass agrees with the CDF difference where that is accurate', () => {
    expect(betaMass(2, 3, 0.1, 0.4)).toBeCloseTo(betaCdf(0.4, 2, 3) - betaCdf(0.1, 2, 3), 14);
    expect(betaMass(2, 3, 0.7, 0.9)).toBeCloseTo(betaCdf(0.9, 2, 3) - betaCdf(0.7, 2, 3), 14);
    // Deep in the upper tail the survival function keeps the digits the CDF would round away.
    expect(betaMass(2, 200, 0.5, 0.6)).toBeGreaterThan(0);
  });
});
