import { describe, expect, it } from 'vitest';
import type { MoppsSelector } from '../../../src/selectors/zoo/mopps.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['x', 'y', 'z'], features: {} };

describe('mopps', () => {
  it('discounts the posterior toward the prior, then adds the group (λ = 0.5, Beta(1, 1))', () => {
    const s = build({ type: 'mopps' }, view) as MoppsSelector;
    s.feedback([{ taskId: 'x', rewards: [1, 1, 0, 1] }]);
    // α = 0.5·1 + 0.5·1 + 3 = 4, β = 0.5·1 + 0.5·1 + 1 = 2
    expect(s.posterior('x')).toEqual({ alpha: 4, beta: 2 });
    s.feedback([{ taskId: 'x', rewards: [0, 0, 0, 0] }]);
    // α = 0.5·4 + 0.5 + 0 = 2.5, β = 0.5·2 + 0.5 + 4 = 5.5
    expect(s.posterior('x')).toEqual({ alpha: 2.5, beta: 5.5 });
    expect(s.posterior('y')).toEqual({ alpha: 1, beta: 1 });
    expect(Array.from(s.predict(['x']))).toEqual([2.5 / 8]);
  });

  it('Thompson-selects the task whose rate is near the target', () => {
    const s = build({ type: 'mopps' }, view);
    s.feedback([
      { taskId: 'x', rewards: Array.from({ length: 40 }, (_, i) => i % 2) },
      { taskId: 'y', rewards: Array(40).fill(1) },
      { taskId: 'z', rewards: Array(40).fill(0) },
    ]);
    expect(s.select(1)).toEqual(['x']);
  });
});
