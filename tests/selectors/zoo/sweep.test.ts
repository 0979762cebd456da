import { describe, expect, it } from 'vitest';
import { runSelectionSweep } from '../../../bench/selection/sweep.ts';
import { formatSweep } from '../../../bench/selection/sweep-format.ts';
import { calibrateDifficulty, startShares, sweepPoints } from '../../../bench/selection/sweep-points.ts';
import { LearnerSim, trueSignalShare } from '../../../src/selectors/sim/learner-sim.ts';

// The regime sweep of `bench selection --sweep` (issue #22): its points, the simulator's reward
// noise, and the output's shape on a tiny setting (the numbers of the real sweep are in
// docs/selection-zoo.md).
describe('selection sweep', () => {
  it('has one factor at a time around the default scenario', () => {
    expect(sweepPoints('group-size').map((p) => [p.label, p.isDefault, p.sim])).toEqual([
      ['G = 4', false, { groupSize: 4 }],
      ['G = 8', false, { groupSize: 8 }],
      ['G = 16', true, {}],
      ['G = 32', false, { groupSize: 32 }],
    ]);
    expect(sweepPoints('noise').map((p) => p.sim)).toEqual([
      {},
      { rewardNoise: 0.1 },
      { rewardNoise: 0.2 },
      { rewardNoise: 0.3 },
    ]);
    expect(sweepPoints('pool-size').map((p) => p.value)).toEqual([1000, 10_000, 100_000, 1_000_000]);
    expect(sweepPoints('easy-hard').map((p) => p.label)).toEqual([
      '20% unusable (6% easy, 14% hard)',
      '40% unusable (12% easy, 28% hard)',
      '62% unusable (18% easy, 44% hard)',
      '80% unusable (24% easy, 56% hard)',
      '60% unusable (5% easy, 55% hard)',
      '60% unusable (55% easy, 5% hard)',
    ]);
  });

  it('calibrates the difficulty distribution to the asked start shares', () => {
    const c = calibrateDifficulty(0.05, 0.55);
    const s = startShares(c.difficultyMean, c.difficultySd);
    expect(s.easy).toBeGreaterThan(0.03);
    expect(s.easy).toBeLessThan(0.07);
    expect(s.hard).toBeGreaterThan(0.52);
    expect(s.hard).toBeLessThan(0.58);
  });

  it('flips rewards at the asked rate on a stream of its own; the true outcomes are unchanged', () => {
    const clean = new LearnerSim({ tasks: 200 }, 3);
    const noisy = new LearnerSim({ tasks: 200, rewardNoise: 0.2 }, 3);
    const ids = Array.from({ length: 200 }, (_, k) => `t${k}`);
    const a = clean.rollout(ids, 5).flatMap((r) => r.rewards);
    const b = noisy.rollout(ids, 5).flatMap((r) => r.rewards);
    const flipped = a.filter((x, i) => x !== b[i]).length / a.length;
    expect(a.length).toBe(3200);
    expect(flipped).toBeGreaterThan(0.17);
    expect(flipped).toBeLessThan(0.23);
    // rewardNoise 0 is the simulator as before (same stream, same learning).
    const zero = new LearnerSim({ tasks: 200, rewardNoise: 0 }, 3);
    expect(zero.rollout(ids, 5).flatMap((r) => r.rewards)).toEqual(a);
  });

  it('learns only the part of the spread the rewards share with the truth', () => {
    // p = 0.2, ε = 0.1: q = 0.26, (1 − 2ε)·√(0.16 / 0.1924) = 0.8 × 0.911922… = 0.729537…
    expect(trueSignalShare(0.2, 0.1)).toBeCloseTo(0.7295375, 6);
    expect(trueSignalShare(0.5, 0.1)).toBeCloseTo(0.8, 12);
    expect(trueSignalShare(0, 0.2)).toBe(0);
    expect(trueSignalShare(0.3, 0)).toBe(1);
  });

  it('reports every method per point with ratios, intervals and the winner (tiny setting)', async () => {
    const r = await runSelectionSweep({
      factor: 'pool-size',
      poolSizes: [300, 600],
      maxExactPool: 400,
      seeds: 2,
      steps: 8,
      selectors: ['random', 'bots', 'shared_ability', 'pcl'],
    });
    expect(r.seeds).toEqual([6, 7]);
    expect(r.points.map((p) => [p.label, p.tasks])).toEqual([
      ['300 tasks', 300],
      ['600 tasks', 600],
    ]);
    const [small, large] = r.points;
    expect(small!.methods.map((m) => m.selector)).toEqual(['random', 'bots', 'shared_ability', 'pcl']);
    // bots draws per task per step: skipped above maxExactPool, with the reason recorded.
    expect(large!.methods.map((m) => m.selector)).toEqual(['random', 'shared_ability', 'pcl']);
    expect(large!.skipped.map((s) => s.selector)).toEqual(['bots']);
    for (const p of r.points) {
      expect(p.methods[0]!.rolloutsRatio).toEqual({ ratio: 1, lo: 1, hi: 1 });
      for (const m of p.methods) {
        expect(m.rolloutsRatio.lo).toBeLessThanOrEqual(m.rolloutsRatio.ratio);
        expect(m.rolloutsRatio.ratio).toBeLessThanOrEqual(m.rolloutsRatio.hi);
        expect(m.runs).toBe(2);
      }
      const best = p.methods
        .filter((m) => m.selector !== 'random')
        .sort((x, y) => x.rolloutsRatio.ratio - y.rolloutsRatio.ratio);
      expect(p.winner).toBe(best[0]!.selector);
      expect(p.runnerUp).toBe(best[1]!.selector);
      expect(p.startEasy + p.startHard).toBeGreaterThan(0.4);
      expect(p.sharedAbilityOverBestOther?.other).toBe('pcl');
      expect(p.winnowOverBestOther?.other).toBe('pcl');
      expect(p.methods.every((m) => m.rolloutsPerSeed.length === 2)).toBe(true);
      // The protocol's reading: the AUC winner is the ranked method with the highest mean AUC.
      const byAuc = p.auc.filter((m) => m.rank !== null).sort((x, y) => y.auc - x.auc);
      expect(p.aucWinner.selector).toBe(byAuc[0]!.selector);
      expect(p.aucWinner.overRunnerUp.other).toBe(byAuc[1]!.selector);
      expect(p.auc.find((m) => m.selector === 'random')!.vsRandom.mean).toBe(0);
    }
    const text = formatSweep(r);
    expect(text).toContain('### sweep: pool-size');
    expect(text).toContain('| shared_ability ÷ best other |');
    expect(text).toContain("| Winnow's best ÷ best other |");
    expect(text).toContain('600 tasks: bots skipped');
    expect(text).toContain('| AUC winner |');
  }, 10_000);
});
