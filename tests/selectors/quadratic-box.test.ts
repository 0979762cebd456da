import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minQuadraticOnBox, type Quadratic } from '../../src/selectors/quadratic-box.ts';

const value = (q: Quadratic, x: number, y: number) =>
  q.sxx * x * x + 2 * q.sxy * x * y + q.syy * y * y + 2 * (q.cx * x + q.cy * y) + q.c0;

describe('minQuadraticOnBox', () => {
  it('equals the least value on a fine grid of the box (to the grid’s resolution), never above it', () => {
    const num = fc.double({ min: -3, max: 3, noNaN: true });
    fc.assert(
      fc.property(num, num, num, num, num, num, num, num, num, (a, b, r, cx, cy, x1, dx, y1, dy) => {
        // Convex: S = L·Lᵀ with L = [[a, 0], [b, r]].
        const q: Quadratic = { sxx: a * a, sxy: a * b, syy: b * b + r * r, cx, cy, c0: 1 };
        const x2 = x1 + Math.abs(dx);
        const y2 = y1 + Math.abs(dy);
        const got = minQuadraticOnBox(q, x1, x2, y1, y2);
        let grid = Number.POSITIVE_INFINITY;
        const steps = 200;
        for (let i = 0; i <= steps; i++)
          for (let j = 0; j <= steps; j++)
            grid = Math.min(grid, value(q, x1 + ((x2 - x1) * i) / steps, y1 + ((y2 - y1) * j) / steps));
        const scale = 1 + Math.abs(grid);
        expect(got).toBeLessThanOrEqual(grid + 1e-9 * scale);
        // The grid misses the true minimum by at most the gradient times half a grid step.
        const slack = (Math.abs(dx) + Math.abs(dy)) / steps;
        expect(grid - got).toBeLessThanOrEqual(
          slack * (20 * (Math.abs(a) + Math.abs(b) + Math.abs(r)) ** 2 + 2 * (Math.abs(cx) + Math.abs(cy))) +
            1e-9 * scale,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('finds an interior minimum, an edge minimum and a corner minimum exactly', () => {
    const q: Quadratic = { sxx: 1, sxy: 0, syy: 1, cx: -0.5, cy: -0.25, c0: 0 }; // min at (0.5, 0.25): −0.3125
    expect(minQuadraticOnBox(q, 0, 1, 0, 1)).toBeCloseTo(-0.3125, 15);
    expect(minQuadraticOnBox(q, 0, 1, 0.5, 1)).toBeCloseTo(0.25 - 0.5 + 0.25 - 0.25, 15); // edge y = 0.5, x = 0.5
    expect(minQuadraticOnBox(q, 1, 2, 1, 2)).toBeCloseTo(1 + 1 - 1 - 0.5, 15); // corner (1, 1)
  });
});
