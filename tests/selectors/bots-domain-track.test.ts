import { describe, expect, it } from 'vitest';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { BotsParamsSchema } from '../../src/selectors/registry.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';
import { expectResumesExactly, group } from './bots-drive.ts';

// No reference columns: explicit-only BOTS, unless each domain's observed pass rate stands in.
const view = (): SelectorTaskView => ({
  ids: ['a', 'b', 'c', 'd', 'e'],
  features: {},
  domains: ['x', 'x', 'y', 'y', 'y'],
});
/** 16 rewards with mean r. */

describe('bots domainTrack: implicit evidence toward the domain’s pass rate when there are no references', () => {
  it('updates α and β exactly on a fixed sequence (m 16, λ 0.1, ρ 0.1, d 0.9)', () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, domainTrack: true });
    s.init(view());
    expect(s.report().notices).toEqual([]);
    expect(s.currentRho).toBe(0.1);
    s.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    // Domain x's rate: (0.25 + 0.5)/2 = 0.375 (the first taken as is); y has none yet (pull only).
    let post = s.posterior();
    expect([...post.alpha]).toEqual([5, 9, 1, 1, 1]);
    expect([...post.beta]).toEqual([13, 9, 1, 1, 1]);
    s.feedback([{ taskId: 'c', rewards: group(0) }]);
    // y's rate: 0. a gets 1.6·0.375 successes, d gets 1.6 failures.
    post = s.posterior();
    expect(post.alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 1.6 * 0.375, 12);
    expect(post.beta[0]).toBeCloseTo(0.9 * 13 + 0.1 + 1.6 * 0.625, 12);
    expect(post.alpha[3]).toBeCloseTo(1, 12);
    expect(post.beta[3]).toBeCloseTo(2.6, 12);
    expect(post.beta[2]).toBeCloseTo(17, 12);
    s.feedback([{ taskId: 'd', rewards: group(1) }]);
    // y's rate: 0.9·0 + 0.1·1 = 0.1.
    post = s.posterior();
    expect(post.alpha[4]).toBeCloseTo(0.9 * 1 + 0.1 + 1.6 * 0.1, 12);
    expect(post.beta[4]).toBeCloseTo(0.9 * 2.6 + 0.1 + 1.6 * 0.9, 12);
  });

  it('is off by default: explicit-only, with the notice, and the unobserved posteriors stay at the prior', () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1 });
    s.init(view());
    expect(s.report().notices.join('\n')).toMatch(/explicit-only/);
    s.feedback([{ taskId: 'a', rewards: group(0.25) }]);
    s.feedback([{ taskId: 'c', rewards: group(0) }]);
    expect(s.posterior().alpha[1]).toBeCloseTo(1, 14);
    expect(BotsParamsSchema.parse({}).domainTrack).toBe(false);
  });

  it('with taskOffset, an observed task’s offset is taken against its domain’s rate; resumes exactly', () => {
    const make = () => {
      const s = new BotsSelector(3, { m: 16, rho: 0.2, domainTrack: true, taskOffset: 1, updatePer: 'step' });
      s.init(view());
      return s;
    };
    const one = make();
    one.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    one.feedback([{ taskId: 'c', rewards: group(0) }]);
    // η = 1: a's implicit evidence aims at its own smoothed rate (4 + ½)/17, not x's 0.375.
    expect(one.posterior().alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 3.2 * (4.5 / 17), 12);
    expectResumesExactly(make, 12, 5);
  });
});
