import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import type { MoppsSelector } from '../../../src/selectors/zoo/mopps.ts';
import { build } from './zoo-fixture.ts';

const view = { ids: ['x', 'y', 'z'], features: {} };

/** The method as the paper states it: one Thompson draw per prompt, the `n` nearest the target. */
function fullScan(
  ids: readonly string[],
  post: readonly { alpha: number; beta: number }[],
  target: number,
  n: number,
  seed: number,
): () => string[] {
  const rng = new Rng(seed);
  return () =>
    post
      .map(({ alpha, beta }, k) => ({ k, d: Math.abs(rng.beta(alpha, beta) - target) }))
      .sort((x, y) => x.d - y.d)
      .slice(0, n)
      .map((x) => ids[x.k]!);
}

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

  it('draws batches with the distribution of one Thompson draw per prompt (the full scan)', () => {
    // 10 prompts, 3 observed (posteriors off the prior), a non-uniform prior, target 0.3: the
    // unobserved prompts' draws are the prior's order statistics, the observed ones draw their own.
    const ids = Array.from({ length: 10 }, (_, k) => `p${k}`);
    const params = { target: 0.3, priorAlpha: 2, priorBeta: 3, retention: 0.5 };
    const s = build({ type: 'mopps', params }, { ids, features: {} }) as MoppsSelector;
    s.feedback([
      { taskId: 'p2', rewards: [1, 0, 0, 0] },
      { taskId: 'p5', rewards: [1, 1, 1, 1, 1, 1] },
      { taskId: 'p7', rewards: [0, 0, 1, 0, 0, 0, 0, 0] },
    ]);
    const post = ids.map((id) => s.posterior(id));
    const reference = fullScan(ids, post, 0.3, 3, 99);
    const trials = 5000;
    const fast = new Map<string, number>();
    const full = new Map<string, number>();
    for (let t = 0; t < trials; t++) {
      const a = s.select(3);
      expect(new Set(a).size).toBe(3);
      for (const id of a) fast.set(id, (fast.get(id) ?? 0) + 1 / trials);
      for (const id of reference()) full.set(id, (full.get(id) ?? 0) + 1 / trials);
    }
    // Inclusion frequencies agree (4σ of a difference of two 5,000-trial frequencies ≈ 0.04).
    for (const id of ids) expect(Math.abs((fast.get(id) ?? 0) - (full.get(id) ?? 0))).toBeLessThan(0.04);
    // The observed prompt nearest the target is picked far more often than an unobserved one.
    expect(fast.get('p7')!).toBeGreaterThan(fast.get('p0')! + 0.1);
  });

  it('keeps the observed set in step with the posteriors through feedback and a reload', () => {
    const ids = Array.from({ length: 40 }, (_, k) => `p${k}`);
    const a = build({ type: 'mopps' }, { ids, features: {} }) as MoppsSelector;
    a.feedback([
      { taskId: 'p30', rewards: [1, 0] },
      { taskId: 'p3', rewards: [1] },
    ]);
    a.feedback([{ taskId: 'p12', rewards: [0, 0] }]);
    const b = build({ type: 'mopps' }, { ids, features: {} }) as MoppsSelector;
    b.load(a.state());
    // Same state, same draws: the reloaded selector continues the original's sequence.
    for (let t = 0; t < 20; t++) expect(b.select(5)).toEqual(a.select(5));
  });

  it("in a large pool, simulates observed draws only near the target, with the full scan's distribution", () => {
    // 1,000 prompts, 150 observed with varied evidence, batches of 4: the unobserved fill the batch
    // with tiny distances, so an observed prompt enters only if its draw lands in that window.
    const ids = Array.from({ length: 1000 }, (_, k) => `p${k}`);
    const s = build({ type: 'mopps' }, { ids, features: {} }) as MoppsSelector;
    const setup = new Rng(5);
    for (let r = 0; r < 3; r++)
      s.feedback(
        Array.from({ length: 50 }, (_, j) => {
          const p = setup.float();
          return {
            taskId: `p${r * 50 + j}`,
            rewards: Array.from({ length: 16 }, () => (setup.float() < p ? 1 : 0)),
          };
        }),
      );
    const post = ids.map((id) => s.posterior(id));
    const observed = new Set(ids.filter((_, k) => !(post[k]!.alpha === 1 && post[k]!.beta === 1)));
    expect(observed.size).toBe(150);
    const reference = fullScan(ids, post, 0.5, 4, 17);
    const trials = 3000;
    let fastObserved = 0;
    let fullObserved = 0;
    for (let t = 0; t < trials; t++) {
      fastObserved += s.select(4).filter((id) => observed.has(id)).length / (4 * trials);
      fullObserved += reference().filter((id) => observed.has(id)).length / (4 * trials);
    }
    // The share of picks that are observed prompts agrees (σ of the difference ≈ 0.004).
    expect(fullObserved).toBeGreaterThan(0.01);
    expect(Math.abs(fastObserved - fullObserved)).toBeLessThan(0.016);
  });
});
