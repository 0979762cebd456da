import { describe, expect, it } from 'vitest';
import type { PlrSelector } from '../../../src/selectors/zoo/plr.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['a', 'b', 'c'], features: {} };

describe('plr', () => {
  it('mixes rank prioritisation (β = 0.1) and staleness (ρ = 0.1)', () => {
    const s = build({ type: 'plr' }, view) as PlrSelector;
    const first = s.select(3); // nothing seen: three new tasks, handed out 1, 2, 3
    expect(new Set(first).size).toBe(3);
    const [u, v, w] = first as [string, string, string];
    s.feedback([
      { taskId: u, rewards: [0, 0] }, // score mean|r − r̄| = 0
      { taskId: v, rewards: [1, 0] }, // 0.5
      { taskId: w, rewards: [1, 1, 1, 0] }, // (3·0.25 + 0.75)/4 = 0.375
    ]);
    expect(s.seenTasks()).toEqual([u, v, w]);
    // ranks: v 1, w 2, u 3 → h = 1, 2^-10, 3^-10; staleness c − C_i = 3−1, 3−2, 3−3 → 2/3, 1/3, 0
    const hs = 1 + 2 ** -10 + 3 ** -10;
    const expected = [
      0.9 * (3 ** -10 / hs) + 0.1 * (2 / 3),
      0.9 * (1 / hs) + 0.1 * (1 / 3),
      0.9 * (2 ** -10 / hs),
    ];
    const got = Array.from(s.replayDistribution());
    for (let i = 0; i < 3; i++) expect(got[i]).toBeCloseTo(expected[i]!, 14);
  });
});
