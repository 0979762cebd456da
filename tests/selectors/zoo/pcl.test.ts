import { describe, expect, it } from 'vitest';
import type { PclSelector } from '../../../src/selectors/zoo/pcl.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['p', 'q', 'r'], features: { x: Float64Array.from([1, -1, 0]) } };

describe('pcl', () => {
  it('one logistic SGD step per group, candidates closest to 0.5', () => {
    const s = build({ type: 'pcl' }, view) as PclSelector;
    // x standardised: mean 0, sd √(2/3) → φ = ±1.2247…, 0
    const phi = 1 / Math.sqrt(2 / 3);
    s.feedback([
      { taskId: 'p', rewards: [1, 1] }, // V = .5, g = −.5: w = .1·.5·φ, b = .05
      { taskId: 'q', rewards: [0, 0] }, // z = −.05φ² + .05
    ]);
    const w1 = 0.05 * phi;
    const vq = 1 / (1 + Math.exp(-(w1 * -phi + 0.05)));
    const w = Array.from(s.weights());
    expect(w[0]).toBeCloseTo(w1 - 0.1 * vq * -phi, 14);
    expect(w[1]).toBeCloseTo(0.05 - 0.1 * vq, 14);
    // r (φ = 0) has V = σ(b) closest to 0.5 of the three
    expect(s.select(1)).toEqual(['r']);
  });
});
