import { describe, expect, it } from 'vitest';
import { acceptanceChecks, runScenario } from '../../bench/selection/runner.ts';
import { SCENARIOS } from '../../bench/selection/scenarios.ts';
import { groupSpread, LearnerSim } from '../../src/selectors/sim/learner-sim.ts';

describe('learner simulator', () => {
  it('is deterministic in its seed', () => {
    const a = new LearnerSim({}, 9);
    const b = new LearnerSim({}, 9);
    expect(Array.from(a.passRates().slice(0, 20))).toEqual(Array.from(b.passRates().slice(0, 20)));
    expect(a.rollout(['t1', 't2'], 3)).toEqual(b.rollout(['t1', 't2'], 3));
    expect(Array.from(new LearnerSim({}, 10).passRates().slice(0, 5))).not.toEqual(
      Array.from(a.passRates().slice(0, 5)),
    );
  });

  it('the learner improves only from groups with mixed rewards', () => {
    const sim = new LearnerSim({}, 1);
    const before = sim.heldOutAccuracy();
    expect(
      sim.learn([
        { taskId: 't0', rewards: [1, 1, 1] },
        { taskId: 't1', rewards: [0, 0] },
      ]),
    ).toBe(0);
    expect(sim.heldOutAccuracy()).toBe(before);
    const p = sim.passRate(5);
    expect(sim.learn([{ taskId: 't5', rewards: [1, 0, 1, 0] }])).toBe(1);
    expect(sim.heldOutAccuracy()).toBeGreaterThan(before);
    expect(sim.passRate(5)).toBeGreaterThan(p);
    expect(groupSpread([1, 0, 1, 0])).toBe(1);
    expect(groupSpread([0.5, 0.5])).toBe(0);
  });

  it('views carry reference columns, a level and domains as configured; arrivals come once', () => {
    expect(Object.keys(new LearnerSim({}, 1).view().features).sort()).toEqual([
      'level',
      'strong_pass_rate',
      'weak_pass_rate',
    ]);
    expect(Object.keys(new LearnerSim({ references: 'none' }, 1).view().features)).toEqual(['level']);
    const sim = new LearnerSim({ tasks: 10, arrivals: [{ step: 2, count: 3 }] }, 1);
    expect(sim.arrivals(1)).toBeNull();
    expect(sim.arrivals(2)!.ids).toEqual(['t10', 't11', 't12']);
    expect(sim.arrivals(2)).toBeNull();
    expect(sim.taskCount).toBe(13);
  });
});

describe('acceptance on the default scenario (3 seeds; the full benchmark reports 5)', () => {
  it('random wastes most groups, BOTS does not and needs half the steps, the successor beats BOTS by 10%', () => {
    const result = runScenario(SCENARIOS['default']!, {
      seeds: 3,
      selectors: ['random', 'bots', 'shared_ability'],
    });
    const by = (name: string) => result.selectors.find((s) => s.selector === name)!;
    expect(by('random').etr.mean).toBeLessThan(0.45);
    expect(by('bots').etr.mean).toBeGreaterThan(0.8);
    expect(by('bots').relSteps.mean).toBeLessThanOrEqual(0.5);
    expect(result.successorOverBots!.mean).toBeLessThanOrEqual(0.9);
    expect(acceptanceChecks([result]).every((c) => c.pass)).toBe(true);
  });
});
