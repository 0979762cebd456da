import { describe, expect, it } from 'vitest';
import type { DumpSelector } from '../../../src/selectors/zoo/dump.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['a1', 'a2', 'a3', 'b1'], features: {}, domains: ['a', 'a', 'a', 'b'] };

describe('dump', () => {
  it('UCB = windowed mean |advantage| + √(2 ln Σn / n_j)', () => {
    const s = build({ type: 'dump', params: { window: 2 } }, view) as DumpSelector;
    expect(Array.from(s.scores())).toEqual([Infinity, Infinity]);
    s.feedback([
      { taskId: 'a1', rewards: [1, 0] }, // 1
      { taskId: 'a2', rewards: [1, 1] }, // 0
      { taskId: 'b1', rewards: [1, 0, 0, 0] }, // √3/2
    ]);
    s.feedback([{ taskId: 'a3', rewards: [0, 1] }]); // 1, overwrites a1's slot (window 2)
    const [ua, ub] = Array.from(s.scores()) as [number, number];
    expect(ua).toBeCloseTo((1 + 0) / 2 + Math.sqrt((2 * Math.log(4)) / 3), 14);
    expect(ub).toBeCloseTo(Math.sqrt(3) / 2 + Math.sqrt((2 * Math.log(4)) / 1), 14);
    const p = Array.from(s.distribution());
    expect(p[1]).toBeCloseTo(1 / (1 + Math.exp((ua - ub) / 0.1)), 14);
  });
});
