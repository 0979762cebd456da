import { describe, expect, it } from 'vitest';
import { buildStages } from '../../../src/selectors/stages/registry.ts';
import { type RolloutRequest, runStagedStep } from '../../../src/selectors/stages/staged-step.ts';
import { build } from './zoo-fixture.ts';

/**
 * DAPO dynamic sampling on a mostly-solved pool (issue 36, point 5): 200 tasks in order, one in
 * five has reward variance ([1, 0, 0, 0]), the rest are solved ([1, 1, 1, 1]). The step keeps
 * drawing rounds until it holds `want` mixed groups, and every group drawn is on the bill.
 */
const ids = Array.from({ length: 200 }, (_, i) => `t${i}`);
const view = { ids, features: {} };
const rollout = (req: RolloutRequest) =>
  req.ids.map((id) =>
    Number(id.slice(1)) % 5 === 0
      ? [1, ...Array<number>(req.rollouts - 1).fill(0)]
      : Array<number>(req.rollouts).fill(1),
  );

function step(params: Record<string, unknown>, want = 8) {
  const sel = build({ type: 'sequential' }, view);
  const stages = buildStages([{ type: 'dapo_ds', params }], 1);
  for (const s of stages) s.init(view);
  return runStagedStep(sel, stages, { want, groupSize: 4, step: 0 }, rollout);
}

describe('dapo_ds fills the batch on a mostly-solved pool', () => {
  it('draws rounds of ⌈1.5 × missing⌉ groups until 8 mixed groups are kept, and bills all 36', () => {
    // Rounds ask 12, 8, 6, 3, 3, 2, 2 (t0–t35) and keep 3, 1, 2, 0, 1, 0, 1 (t0 t5 t10 | t15 | t20 t25 | – | t30 | – | t35).
    const r = step({ oversample: 1.5 });
    expect(r.kept.map((g) => g.taskId)).toEqual(['t0', 't5', 't10', 't15', 't20', 't25', 't30', 't35']);
    expect([r.rounds, r.asked, r.fullGroups, r.discardedGroups, r.mixedGroups]).toEqual([7, 36, 36, 28, 8]);
    expect(r.rollouts).toBe(36 * 4);
  });

  it('stops at maxRounds with what it kept, every drawn group still billed', () => {
    const r = step({ oversample: 1.5, maxRounds: 3 });
    expect([r.kept.length, r.rounds, r.fullGroups, r.rollouts]).toEqual([6, 3, 26, 26 * 4]);
  });

  it('fills a larger batch when given the rounds (32 groups, 1 in 5 mixed)', () => {
    const r = step({ oversample: 2, maxRounds: 100 }, 32);
    expect(r.kept).toHaveLength(32);
    expect(r.kept.every((g) => new Set(g.rewards).size === 2)).toBe(true);
    expect(r.rollouts).toBe(r.fullGroups * 4);
    expect(r.fullGroups).toBe(r.kept.length + r.discardedGroups);
  });
});
