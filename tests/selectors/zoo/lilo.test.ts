import { describe, expect, it } from 'vitest';
import type { LiloSelector } from '../../../src/selectors/zoo/lilo.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['s1', 's2', 'm1', 'm2', 'h1'], features: {} };

describe('lilo', () => {
  it('scores p(1 − p) from the latest group and rejects solved and hopeless tasks', () => {
    const s = build({ type: 'lilo' }, view) as LiloSelector;
    expect(s.learnability('m1')).toBe(0.25); // never tried
    s.feedback([
      { taskId: 's1', rewards: [1, 1, 1, 1] },
      { taskId: 's2', rewards: [1, 1, 1, 1] },
      { taskId: 'm1', rewards: [1, 0, 1, 1] },
      { taskId: 'm2', rewards: [1, 0, 0, 1] },
      { taskId: 'h1', rewards: [0, 0, 0, 0] },
    ]);
    expect(s.learnability('m1')).toBe(0.75 * 0.25);
    expect(s.learnability('m2')).toBe(0.25);
    expect(s.learnability('s1')).toBe(0);
    expect(s.learnability('h1')).toBe(0);
    for (let i = 0; i < 5; i++) expect(s.select(2).sort()).toEqual(['m1', 'm2']);
    s.feedback([{ taskId: 'm1', rewards: [1, 1] }]); // the latest group replaces the estimate
    expect(s.learnability('m1')).toBe(0);
  });
});
