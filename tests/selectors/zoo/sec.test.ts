import { describe, expect, it } from 'vitest';
import type { SelectorConfig } from '../../../src/selectors/registry.ts';
import type { SelectorState } from '../../../src/selectors/types.ts';
import type { SecSelector } from '../../../src/selectors/zoo/sec.ts';
import { build, step, zooView } from './zoo-fixture.ts';

const view = { ids: ['a1', 'a2', 'b1', 'b2'], features: {}, domains: ['a', 'a', 'b', 'b'] };

describe('sec', () => {
  it('TD(0) on mean |normalised advantage| per category, Boltzmann distribution', () => {
    const s = build({ type: 'sec' }, view) as SecSelector;
    expect(s.distribution()).toEqual({ a: 0.5, b: 0.5 });
    s.feedback([
      { taskId: 'a1', rewards: [1, 0] }, // |A| = 0.5 / 0.5 = 1
      { taskId: 'a2', rewards: [1, 1] }, // no variance: 0
      { taskId: 'b1', rewards: [1, 0, 0, 0] }, // mean|r − .25| = .375, σ = √.1875 → √3/2
    ]);
    const qa = 0.5 * ((1 + 0) / 2);
    const qb = 0.5 * (Math.sqrt(3) / 2);
    const q = s.values();
    expect(q['a']).toBe(qa);
    expect(q['b']).toBeCloseTo(qb, 15);
    const d = s.distribution();
    expect(d['b']).toBeCloseTo(Math.exp(qb) / (Math.exp(qa) + Math.exp(qb)), 15);
    s.feedback([{ taskId: 'a1', rewards: [0, 0] }]); // r_a = 0: Q_a = 0.5·0 + 0.5·0.25
    expect(s.values()['a']).toBe(0.125);
    expect(s.values()['b']).toBeCloseTo(qb, 15); // categories not drawn keep their value
  });
});

describe('sec: exact sequences (24 zoo tasks, select(5) × 6, seed 9)', () => {
  const cases: Array<[SelectorConfig, string[][]]> = [
    [
      { type: 'sec' },
      [
        ['t6', 't13', 't8', 't7', 't16'],
        ['t11', 't8', 't14', 't5', 't23'],
        ['t22', 't0', 't17', 't3', 't8'],
        ['t12', 't19', 't22', 't18', 't14'],
        ['t23', 't12', 't0', 't2', 't15'],
        ['t5', 't3', 't8', 't21', 't1'],
      ],
    ],
    [
      { type: 'sec', params: { category: 'level', temperature: 0.3 } },
      [
        ['t1', 't22', 't14', 't2', 't8'],
        ['t23', 't13', 't7', 't22', 't12'],
        ['t4', 't11', 't12', 't6', 't13'],
        ['t21', 't3', 't12', 't22', 't17'],
        ['t21', 't7', 't12', 't2', 't17'],
        ['t22', 't7', 't2', 't17', 't12'],
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
