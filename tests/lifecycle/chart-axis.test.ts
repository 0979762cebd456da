import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTick,
  formatValue,
  niceAxis,
  stepTicks,
} from '../../src/lifecycle/report/sections/line-chart.ts';

/** Whether `step` is 1, 2 or 5 × 10^k. */
function isNiceStep(step: number): boolean {
  const e = Math.floor(Math.log10(step) + 1e-12);
  const m = step / 10 ** e;
  return [1, 2, 5, 10].some((n) => Math.abs(m - n) < 1e-9 * n);
}

describe('niceAxis', () => {
  it('scales held-out accuracy from 33% to 43% to 30%–45%, not to 0–100%', () => {
    const a = niceAxis(0.33, 0.43, { bounds: [0, 1] });
    expect(a).toEqual({ min: 0.3, max: 0.45, step: 0.05, ticks: [0.3, 0.35, 0.4, 0.45] });
    expect(a.ticks.map((t) => formatTick(t, a.step, true))).toEqual(['30%', '35%', '40%', '45%']);
  });

  it('golden ranges: rewards, counts from zero, a flat series, bounded ratios, large numbers', () => {
    expect(niceAxis(0.125, 0.625).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(niceAxis(0, 37, { includeZero: true, integer: true, padding: 0 }).ticks).toEqual([
      0, 10, 20, 30, 40,
    ]);
    expect(niceAxis(0.4, 0.4).ticks).toEqual([0.36, 0.38, 0.4, 0.42, 0.44]);
    expect(niceAxis(0, 0, { bounds: [0, 1] }).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceAxis(0.02, 0.98, { bounds: [0, 1] }).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceAxis(1200, 98000).ticks).toEqual([0, 20000, 40000, 60000, 80000, 100000]);
    expect(niceAxis(0, 0).ticks).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceAxis(-3, 2).ticks).toEqual([-3, -2, -1, 0, 1, 2]);
  });

  it('property: ticks are equally spaced nice multiples inside the range, cover the data, at most N', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: -6, max: 3 }),
        fc.integer({ min: 3, max: 12 }),
        fc.boolean(),
        (a, width, scale, maxTicks, includeZero) => {
          const lo = a * 10 ** scale;
          const hi = (a + width) * 10 ** scale;
          const ax = niceAxis(lo, hi, { maxTicks, includeZero });
          const tol = Math.max(Math.abs(lo), Math.abs(hi), ax.step) * 1e-9;
          expect(ax.ticks.length).toBeLessThanOrEqual(maxTicks);
          expect(ax.ticks.length).toBeGreaterThanOrEqual(2);
          expect(isNiceStep(ax.step)).toBe(true);
          expect(ax.ticks[0]).toBe(ax.min);
          expect(ax.ticks.at(-1)).toBe(ax.max);
          for (const t of ax.ticks) {
            expect(t).toBeGreaterThanOrEqual(ax.min);
            expect(t).toBeLessThanOrEqual(ax.max);
            expect(Math.abs(t / ax.step - Math.round(t / ax.step))).toBeLessThan(1e-6);
          }
          for (let i = 1; i < ax.ticks.length; i++)
            expect(Math.abs(ax.ticks[i]! - ax.ticks[i - 1]! - ax.step)).toBeLessThan(tol + ax.step * 1e-9);
          expect(ax.min).toBeLessThanOrEqual(lo + tol);
          expect(ax.max).toBeGreaterThanOrEqual(hi - tol);
          if (includeZero) {
            expect(ax.min).toBeLessThanOrEqual(0);
            expect(ax.max).toBeGreaterThanOrEqual(0);
          }
          // Scaled to the data: with room for 5 or more ticks, the data fills at least a third of the axis.
          if (maxTicks >= 5 && !includeZero && width > 0)
            expect(hi - lo).toBeGreaterThanOrEqual((ax.max - ax.min) / 3 - tol);
        },
      ),
      { numRuns: 2000, seed: 14 },
    );
  });

  it('property: ratios stay inside [0, 1] whatever the data in it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 }), (a, b) => {
        const ax = niceAxis(Math.min(a, b) / 1000, Math.max(a, b) / 1000, { bounds: [0, 1] });
        expect(ax.min).toBeGreaterThanOrEqual(0);
        expect(ax.max).toBeLessThanOrEqual(1);
        expect(ax.min).toBeLessThanOrEqual(Math.min(a, b) / 1000);
        expect(ax.max).toBeGreaterThanOrEqual(Math.max(a, b) / 1000);
      }),
      { numRuns: 1000, seed: 7 },
    );
  });
});

describe('stepTicks', () => {
  it('labels whole steps inside the range', () => {
    expect(stepTicks(1, 3)).toEqual([1, 2, 3]);
    expect(stepTicks(0, 60)).toEqual([0, 20, 40, 60]);
    expect(stepTicks(1, 60)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(stepTicks(5, 5)).toEqual([5]);
  });

  it('property: integer ticks inside [min, max], at most N, nice spacing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 2, max: 10 }),
        (a, w, n) => {
          const t = stepTicks(a, a + w, n);
          expect(t.length).toBeGreaterThanOrEqual(1);
          expect(t.length).toBeLessThanOrEqual(n);
          for (const v of t) {
            expect(Number.isInteger(v)).toBe(true);
            expect(v).toBeGreaterThanOrEqual(a);
            expect(v).toBeLessThanOrEqual(a + w);
          }
          if (t.length > 1) expect(isNiceStep(t[1]! - t[0]!)).toBe(true);
        },
      ),
      { numRuns: 1000, seed: 3 },
    );
  });
});

describe('formatTick and formatValue', () => {
  it('gives a tick as many decimals as its step needs', () => {
    expect(formatTick(0.35, 0.05)).toBe('0.35');
    expect(formatTick(0.4, 0.05)).toBe('0.40');
    expect(formatTick(0.35, 0.05, true)).toBe('35%');
    expect(formatTick(0.325, 0.005, true)).toBe('32.5%');
    expect(formatTick(40000, 20000)).toBe('40,000');
    expect(formatTick(-0, 1)).toBe('0');
  });

  it('rounds measured numbers to 3 significant digits (ratios to a percentage with one decimal)', () => {
    expect(formatValue(0.333333, true)).toBe('33.3%');
    expect(formatValue(0.123456)).toBe('0.123');
    expect(formatValue(12.3456)).toBe('12.3');
    expect(formatValue(1280)).toBe('1,280');
    expect(formatValue(12345.6)).toBe('12,346');
    expect(formatValue(undefined)).toBe('—');
    expect(formatValue(Number.NaN)).toBe('—');
  });
});
