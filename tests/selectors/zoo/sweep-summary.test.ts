import { describe, expect, it } from 'vitest';
import {
  isWinnows,
  runSelectionSweep,
  type SweepPointResult,
  type SweepResult,
} from '../../../bench/selection/sweep.ts';
import { aucPlace, sweepSummaryMarkdown } from '../../../bench/selection/sweep-format.ts';

// The sweep table of docs/selection-zoo.md: per point the AUC winner, the runner-up and where
// Winnow's methods stand, an unranked method placed among the ranked ones without entering the ranking.
const diff = (mean: number, lo: number, hi: number) => ({ mean, lo, hi });
const point = (label: string, isDefault: boolean): SweepPointResult =>
  ({
    factor: 'noise',
    label,
    isDefault,
    auc: [
      { selector: 'random', rank: 4, auc: 0.3, vsRandom: diff(0, 0, 0) },
      { selector: 'pcl', rank: 1, auc: 0.42, vsRandom: diff(0.12, 0.11, 0.13) },
      { selector: 'shared_ability', rank: 2, auc: 0.415, vsRandom: diff(0.115, 0.1, 0.12) },
      { selector: 'bots', rank: 3, auc: 0.35, vsRandom: diff(0.05, 0.04, 0.06) },
      { selector: 'headroom', rank: null, auc: 0.4, vsRandom: diff(0.1, 0.09, 0.11) },
      { selector: 'oracle', rank: null, auc: 0.5, vsRandom: diff(0.2, 0.19, 0.21) },
    ],
    aucWinner: { selector: 'pcl', overRunnerUp: { ...diff(0.005, -0.001, 0.012), other: 'shared_ability' } },
  }) as unknown as SweepPointResult;

describe('sweep summary table', () => {
  it('places ranked methods by rank and unranked ones where their AUC would put them', () => {
    const p = point('flip 0.1', false);
    expect(aucPlace(p, 'pcl')).toBe('#1');
    expect(aucPlace(p, 'shared_ability')).toBe('#2');
    // 0.40 is below pcl and shared_ability, above bots: third, but not in the ranking.
    expect(aucPlace(p, 'headroom')).toBe('(#3, unranked)');
    expect(aucPlace(p, 'dump')).toBe('not run');
  });

  it('prints one row per point with the winner, the runner-up, the margin and the places', () => {
    const r = { points: [point('flip 0', true), point('flip 0.1', false)] } as unknown as SweepResult;
    expect(sweepSummaryMarkdown(r, ['shared_ability', 'headroom']).split('\n')).toEqual([
      '| factor | point | AUC winner (AUC %) | runner-up (AUC %) | winner − runner-up [90%] | shared_ability | headroom |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      '| noise | flip 0 (default) | pcl 42.0 | shared_ability 41.5 | +0.5 [-0.1, +1.2] | #2 | (#3, unranked) |',
      '| noise | flip 0.1 | pcl 42.0 | shared_ability 41.5 | +0.5 [-0.1, +1.2] | #2 | (#3, unranked) |',
    ]);
  });

  it("counts headroom among Winnow's methods (the sweep's \"Winnow's best\" row)", () => {
    expect(['shared_ability', 'shared_ability+speed', 'headroom', 'pcl', 'bots'].filter(isWinnows)).toEqual([
      'shared_ability',
      'shared_ability+speed',
      'headroom',
    ]);
  });

  it('runs a part of a sweep (--points) with the numbers the whole sweep gives those points', async () => {
    const opts = {
      factor: 'pool-size',
      poolSizes: [300, 500, 700],
      seeds: 8,
      steps: 30,
      selectors: ['random', 'pcl', 'dump'],
    };
    const whole = await runSelectionSweep(opts);
    const part = await runSelectionSweep({ ...opts, points: [3] });
    const timeless = (p: SweepPointResult) => ({ ...p, seconds: 0 });
    expect(part.points.map((p) => p.label)).toEqual(['700 tasks']);
    // The bootstrap intervals included (salted by the point's place in the whole sweep, not in the part).
    expect(part.points.map(timeless)).toEqual([timeless(whole.points[2]!)]);
    await expect(runSelectionSweep({ ...opts, points: [4] })).rejects.toThrow(
      'the pool-size sweep has 3 points, no point 4',
    );
  }, 120_000);
});
