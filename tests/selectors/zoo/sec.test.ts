import { describe, expect, it } from 'vitest';
import type { SecSelector } from '../../../src/selectors/zoo/sec.ts';
import { build } from './zoo-fixture.ts';

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
