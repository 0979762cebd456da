import { describe, expect, it } from 'vitest';
import type { SelectorConfig } from '../../../src/selectors/registry.ts';
import type { SelectorState } from '../../../src/selectors/types.ts';
import type { DumpSelector } from '../../../src/selectors/zoo/dump.ts';
import { build, step, zooView } from './zoo-fixture.ts';

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

describe('dump: exact sequences (24 zoo tasks, select(5) × 6, seed 9)', () => {
  const cases: Array<[SelectorConfig, string[][]]> = [
    [
      { type: 'dump', params: { window: 3 } },
      [
        ['t6', 't13', 't8', 't7', 't16'],
        ['t11', 't8', 't14', 't5', 't23'],
        ['t21', 't0', 't15', 't3', 't6'],
        ['t13', 't19', 't22', 't10', 't4'],
        ['t20', 't11', 't21', 't15', 't5'],
        ['t7', 't16', 't11', 't10', 't5'],
      ],
    ],
    [
      { type: 'dump', params: { category: 'level' } },
      [
        ['t1', 't22', 't14', 't2', 't8'],
        ['t20', 't10', 't5', 't0', 't15'],
        ['t3', 't11', 't13', 't21', 't18'],
        ['t12', 't22', 't17', 't2', 't7'],
        ['t14', 't4', 't19', 't9', 't8'],
        ['t21', 't6', 't8', 't1', 't11'],
      ],
    ],
  ];
  for (const [config, expected] of cases)
    it(`${JSON.stringify(config)}: the same ids every run, and after a resume at step 3`, () => {
      const sel = build(config, zooView(24), 9);
      const seq: string[][] = [];
      let saved: SelectorState | undefined;
      for (let t = 0; t < 6; t++) {
        if (t === 3) saved = JSON.parse(JSON.stringify(sel.state()));
        seq.push(step(sel, t, 5));
      }
      expect(seq).toEqual(expected);
      const resumed = build(config, zooView(24), 9);
      resumed.load(saved!);
      expect([3, 4, 5].map((t) => step(resumed, t, 5))).toEqual(expected.slice(3));
    });
});
