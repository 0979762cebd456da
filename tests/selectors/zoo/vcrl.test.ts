import { describe, expect, it } from 'vitest';
import type { VcrlSelector } from '../../../src/selectors/zoo/vcrl.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['t1', 't2', 't3', 't4', 't5', 't6'], features: {} };

describe('vcrl', () => {
  it('banks prompts with normalised variance ≥ κ, momentum priority, refills dropped slots', () => {
    const s = build({ type: 'vcrl', params: { warmupSteps: 2 } }, view) as VcrlSelector;
    expect(s.kappa).toBe(0.3);
    s.feedback([
      { taskId: 't1', rewards: [1, 0, 1, 0] }, // var .25 → score 1
      { taskId: 't2', rewards: [1, 1, 1, 1] }, // 0: below κ
      { taskId: 't3', rewards: [1, 1, 1, 0] }, // var .1875 → .75
    ]);
    expect(s.bankPriority('t1')).toBe(1);
    expect(s.bankPriority('t3')).toBe(0.75);
    expect(s.bankPriority('t2')).toBeNaN();
    s.feedback([
      { taskId: 't1', rewards: [1, 1, 1, 0] }, // P = 0.9·1 + 0.1·0.75
      { taskId: 't2', rewards: [0, 0, 0, 0] }, // below κ: one slot to refill
    ]);
    expect(s.bankPriority('t1')).toBe(0.9 * 1 + (1 - 0.9) * 0.75);
    expect(s.kappa).toBe(0.8); // after the warm-up
    const ids = s.select(3);
    expect(ids[0]).toBe('t1'); // the bank's top priority fills the one dropped slot
    expect(new Set(ids).size).toBe(3);
    s.feedback([{ taskId: 't3', rewards: [1, 1, 1, 0] }]); // .75 < κ = .8: leaves the bank
    expect(s.bankPriority('t3')).toBeNaN();
  });
});
