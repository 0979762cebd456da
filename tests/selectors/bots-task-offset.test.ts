import { describe, expect, it } from 'vitest';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { TaskOffsets } from '../../src/selectors/bots-task-offset.ts';
import { BotsParamsSchema } from '../../src/selectors/registry.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';
import { expectResumesExactly, group } from './bots-drive.ts';

const F0 = [0.1, 0.2, 0, 0.5, 0.3];
const F1 = [0.5, 0.6, 0.3, 0.9, 0.3];
const view = (domains?: string[]): SelectorTaskView => ({
  ids: ['a', 'b', 'c', 'd', 'e'],
  features: { weak_pass_rate: Float64Array.from(F0), strong_pass_rate: Float64Array.from(F1) },
  ...(domains ? { domains } : {}),
});
/** 16 rewards with mean r. */
const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

describe('bots taskOffset: the offset itself', () => {
  it('moves u by η·(logit r̃ − (logit track + u)), with r̃ = (r̄·n + ½)/(n + 1), and clamps it to ±6', () => {
    const t = new TaskOffsets(0.5);
    t.grow(3);
    // 8 of 8 against a track at 0.5: r̃ = 8.5/9, u = 0.5·ln 17.
    t.observe(0, 1, 8, 0.5);
    expect(t.of(0)).toBeCloseTo(1.4166066720281079, 14);
    expect(t.shift(0, 0.5)).toBeCloseTo(0.8048058983988962, 14);
    // 4 of 8 against a track at 0.6: u ← u + 0.5·(0 − (logit 0.6 + u)).
    t.observe(0, 0.5, 8, 0.6);
    expect(t.of(0)).toBeCloseTo(0.5055707819599718, 14);
    // A task never observed stays on its track exactly.
    expect(t.of(1)).toBe(0);
    expect(t.shift(1, 0.3)).toBe(0.3);
    // 0 of 8 against a track at 0.999 (logit clamped at 0.99): −7.43 is clamped to −6.
    const full = new TaskOffsets(1);
    full.grow(1);
    full.observe(0, 0, 8, 0.999);
    expect(full.of(0)).toBe(-6);
    expect(full.shift(0, 0.999)).toBeCloseTo(sigmoid(logit(0.99) - 6), 14);
  });

  it('the config schema takes taskOffset in [0, 1] (default 0, the paper)', () => {
    expect(BotsParamsSchema.parse({}).taskOffset).toBe(0);
    expect(BotsParamsSchema.parse({ taskOffset: 0.5 }).taskOffset).toBe(0.5);
    expect(BotsParamsSchema.safeParse({ taskOffset: 1.5 }).success).toBe(false);
  });
});

describe('bots taskOffset: the posterior update on the worked example', () => {
  it('observed tasks get implicit evidence at σ(logit p̃ + u); tasks never observed are unchanged', () => {
    const plain = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1 });
    const shifted = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, taskOffset: 0.5 });
    for (const s of [plain, shifted]) {
      s.init(view());
      s.feedback([
        { taskId: 'a', rewards: group(0.25) },
        { taskId: 'b', rewards: group(0.5) },
      ]);
    }
    // Step one: the explicit evidence is the paper's (offsets act on implicit evidence only).
    expect([...shifted.posterior().alpha]).toEqual([...plain.posterior().alpha]);
    for (const s of [plain, shifted])
      s.feedback([
        { taskId: 'c', rewards: group(0) },
        { taskId: 'd', rewards: group(1) },
      ]);
    expect(shifted.c).toBe(plain.c);
    const c1 = 0.5625;
    const c2 = 0.9 * 0.5625 + 0.1 * (0.25 / 0.35);
    // u_a = 0.5·(logit(4.5/17) − logit(0.1 + c1·0.4)) = −0.1454; a's track at c2 is shifted by it.
    const ua = 0.5 * (logit(4.5 / 17) - logit(0.1 + c1 * 0.4));
    expect(ua).toBeCloseTo(-0.14538186949459453, 14);
    const pa = sigmoid(logit(0.1 + c2 * 0.4) + ua);
    const post = shifted.posterior();
    expect(post.alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 1.6 * pa, 12);
    expect(post.alpha[0]).toBeCloseTo(5.079520615860425, 12);
    expect(post.beta[0]).toBeCloseTo(12.920479384139576, 12);
    // b (4 of 8 → r̃ = 0.5, track 0.425 at c1): u_b = +0.1511.
    expect(post.alpha[1]).toBeCloseTo(8.949530853207923, 12);
    expect(post.beta[1]).toBeCloseTo(9.050469146792075, 12);
    // Without offsets a is the worked example's 5.1297; e (never observed) is identical in both.
    expect(Math.abs(plain.posterior().alpha[0]! - 5.1297)).toBeLessThan(1e-3);
    expect(post.alpha[4]).toBe(plain.posterior().alpha[4]);
    expect(post.beta[4]).toBe(plain.posterior().beta[4]);
  });

  it('with capabilityBy domain the track is the domain’s own capability', () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, capabilityBy: 'domain', taskOffset: 1 });
    s.init(view(['x', 'x', 'y', 'y', 'y']));
    s.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    s.feedback([{ taskId: 'c', rewards: group(0) }]);
    // Domain x keeps c_x = 0.5625 (not observed in step two); η = 1 puts a's implicit evidence at
    // exactly its own smoothed rate 4.5/17 whatever the track.
    const post = s.posterior();
    expect(post.alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 1.6 * (4.5 / 17), 12);
    expect(post.beta[0]).toBeCloseTo(0.9 * 13 + 0.1 + 1.6 * (12.5 / 17), 12);
  });
});

describe('bots taskOffset: tasks with an offset stay explicit, and resume exactly', () => {
  it('an observed task does not rejoin the shared track while it has an offset', () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.5, rho: 0.1, taskOffset: 0.5 });
    s.init(view());
    s.feedback([{ taskId: 'a', rewards: group(0.25) }]);
    for (let i = 0; i < 80; i++) s.feedback([{ taskId: 'b', rewards: group(0.5) }]);
    // Without offsets a would have settled back onto the lazy track ((1 − 0.5)^t < 1e-15 by t = 50).
    const plain = new BotsSelector(1, { m: 16, lambda: 0.5, rho: 0.1 });
    plain.init(view());
    plain.feedback([{ taskId: 'a', rewards: group(0.25) }]);
    for (let i = 0; i < 80; i++) plain.feedback([{ taskId: 'b', rewards: group(0.5) }]);
    expect(plain.explicitTasks).toBe(1);
    expect(s.explicitTasks).toBe(2);
  });

  it('save → load → continue equals the uninterrupted run (selections and state)', () => {
    const make = () => {
      const s = new BotsSelector(5, {
        capabilityBy: 'domain',
        trainedGain: 0.2,
        m: 64,
        updatePer: 'step',
        taskOffset: 0.5,
      });
      s.init(view(['x', 'x', 'y', 'y', 'y']));
      return s;
    };
    const saved = expectResumesExactly(make, 12, 5);
    // The default state carries no offsets (unchanged layout for existing checkpoints).
    const dflt = new BotsSelector(5);
    dflt.init(view());
    expect(Object.keys(dflt.state().data)).not.toContain('taskOffsets');
    expect(Object.keys(saved.state().data)).toContain('taskOffsets');
  });
});
