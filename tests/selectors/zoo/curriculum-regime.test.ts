import { describe, expect, it } from 'vitest';
import type { StartReport } from '../../../bench/learning-curriculum/references.ts';
import { regimePool } from '../../../bench/learning-curriculum/regime.ts';
import type { Task } from '../../../src/core/task.ts';

// The curriculum bench's --pool-unusable regime (issue #22): a seeded sub-pool with an exact share
// of tasks unusable at the start, in the full pool's order, with its own start report.
describe('curriculum pool regime', () => {
  // 40 tasks: 0–9 too easy (p 0.99), 10–29 usable (p 0.5), 30–39 too hard (p 0.01).
  const rates = Float64Array.from({ length: 40 }, (_, i) => (i < 10 ? 0.99 : i < 30 ? 0.5 : 0.01));
  const train = Array.from(
    { length: 40 },
    (_, i) => ({ id: `t${i}`, meta: { domain: i < 20 ? 'A' : 'B' } }) as unknown as Task,
  );
  const start: StartReport = { passRates: rates, extremeShare: 0.5, noGradientShare: 0, byLevel: {} };
  const strong = Float64Array.from({ length: 40 }, (_, i) => i / 40);

  it('draws the asked share of unusable tasks, keeps the pool order and aligns the columns', () => {
    const r = regimePool(train, start, strong, { unusable: 0.25, tasks: 20 }, 4);
    expect(r.train).toHaveLength(20);
    expect(r.tooEasy + r.tooHard).toBe(5);
    expect(r.usable).toBe(15);
    expect(r.start.extremeShare).toBe(0.25);
    const idx = r.train.map((t) => Number(t.id.slice(1)));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect([...r.strong]).toEqual(idx.map((i) => i / 40));
    expect([...r.start.passRates]).toEqual(idx.map((i) => rates[i]!));
    // p = 0.5 with 4 rollouts: 2 × 0.5⁴ = 0.125; p 0.99 / 0.01: 0.99⁴ + 0.01⁴ = 0.96059601.
    expect(r.start.noGradientShare).toBeCloseTo((15 * 0.125 + 5 * (0.99 ** 4 + 0.01 ** 4)) / 20, 12);
    // Seeded: the same regime draws the same tasks.
    expect(regimePool(train, start, strong, { unusable: 0.25, tasks: 20 }, 4).train).toEqual(r.train);
  });

  it('refuses a pool the full pool cannot give, in one line with a hint', () => {
    expect(() => regimePool(train, start, strong, { unusable: 0.1, tasks: 30 }, 4)).toThrow(
      /a 30-task pool with 3 unusable and 27 usable tasks cannot be drawn from 20 unusable and 20 usable/,
    );
  });
});
