import { describe, expect, it } from 'vitest';
import type { LearningCurve } from '../../../bench/learning-curriculum/learner.ts';
import { regimeColumn, regimeTable } from '../../../bench/learning-curriculum/regime-table.ts';

// The real learner's regime table (docs/selection-zoo.md): rollouts to the common target from the
// bench's curves, merged over files, ratios to random paired over seeds.
const curve = (selector: string, seed: number, acc: number[], perStep: number): LearningCurve => ({
  selector,
  seed,
  points: acc.map((accuracy, i) => ({
    step: 4 * i,
    updates: 4 * i,
    rollouts: perStep * 4 * i,
    accuracy,
    levels: {},
  })),
  effective: 0.5,
  rollouts: perStep * 4 * (acc.length - 1),
  distinct: 10,
  picked: {},
  seconds: 1,
});

describe('curriculum regime table', () => {
  // random: 0.30 → 0.50 (target 0.40, reached at step 4 → 400 rollouts at 100 per step);
  // pcl reaches 0.40 at step 4 with 50 per step (200); the successor at step 2 by interpolation (100).
  const base = {
    seeds: [6, 7],
    targetShare: 0.5,
    settings: { steps: 8 },
    pool: { tasks: 350, startExtremeShare: 0.4 },
  };
  const a = {
    ...base,
    curves: [6, 7].flatMap((s) => [
      curve('random', s, [0.3, 0.4, 0.5], 100),
      curve('pcl', s, [0.3, 0.4, 0.45], 50),
    ]),
  };
  const b = { ...base, curves: [6, 7].map((s) => curve('shared_ability_cand', s, [0.3, 0.5, 0.5], 50)) };

  it('merges files and computes rollouts to the target per seed', () => {
    const col = regimeColumn('40%', [a, b]);
    expect(col.target).toBeCloseTo(0.4, 12);
    expect(col.rollouts.get('random')).toEqual([400, 400]);
    expect(col.rollouts.get('pcl')).toEqual([200, 200]);
    for (const r of col.rollouts.get('shared_ability_cand')!) expect(r).toBeCloseTo(100, 9);
    const md = regimeTable([col]).split('\n');
    expect(md).toContain('| pcl | 0.50 [0.50, 0.50] |');
    expect(md).toContain('| shared_ability_cand | 0.25 [0.25, 0.25] * |');
    expect(md).toContain('| winner | shared_ability_cand |');
    expect(md).toContain('| winner ÷ runner-up | 0.50 [0.50, 0.50] (pcl) |');
    expect(md).toContain('| shared_ability_cand ÷ best other | 0.50 [0.50, 0.50] (pcl) |');
  });
});
