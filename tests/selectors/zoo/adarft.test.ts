import { describe, expect, it } from 'vitest';
import type { AdarftSelector } from '../../../src/selectors/zoo/adarft.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['a', 'b', 'c', 'd', 'e'], features: { level: Float64Array.from([0, 1, 2, 3, 4]) } };

describe('adarft', () => {
  it('moves the target by η·tanh(α(R̄ − β)) and picks the closest difficulty', () => {
    const s = build({ type: 'adarft', params: { feature: 'level' } }, view) as AdarftSelector;
    expect(s.target).toBe(0);
    expect(s.select(2)).toEqual(['a', 'b']);
    s.feedback([
      { taskId: 'a', rewards: [1, 1] },
      { taskId: 'b', rewards: [1, 1] },
    ]);
    // R̄ = 1: T = 0 + 0.5·tanh(2·(1 − 0.5)) = 0.5·tanh(1) ≈ 0.3808
    expect(s.target).toBe(0.5 * Math.tanh(1));
    // levels rescale to 0, .25, .5, .75, 1: |.5 − .3808| = .119 < |.25 − .3808| = .131
    expect(s.select(1)).toEqual(['c']);
    s.feedback([{ taskId: 'c', rewards: [0, 0, 0, 0] }]);
    // R̄ = 0: T = 0.3808 − 0.5·tanh(1) = 0
    expect(s.target).toBe(0);
    s.feedback([{ taskId: 'c', rewards: [0] }]);
    expect(s.target).toBe(0); // clipped at the easiest
  });

  it('names the missing column', () => {
    expect(() => build({ type: 'adarft' }, view)).toThrow(/difficulty.*known: level/);
  });
});
