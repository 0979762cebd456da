import { describe, expect, it } from 'vitest';
import { buildSelector } from '../../../src/selectors/registry.ts';
import type { GresoStage } from '../../../src/selectors/stages/greso.ts';
import { buildStages } from '../../../src/selectors/stages/registry.ts';
import { StagedSelector } from '../../../src/selectors/stages/staged-selector.ts';
import { type RolloutRequest, runStagedStep } from '../../../src/selectors/stages/staged-step.ts';
import type { PreRolloutStage } from '../../../src/selectors/stages/types.ts';
import type { Selector } from '../../../src/selectors/types.ts';
import { build, rewardsFor, zooView } from './zoo-fixture.ts';

const PHASES = { probe: 0, screen: 1, continue: 2, full: 3 } as const;
/** Deterministic rollouts: a task's rewards depend on the step, the phase and the task. */
const rolloutAt = (t: number) => (req: RolloutRequest) =>
  req.ids.map((id) => rewardsFor(id, t * 10 + PHASES[req.phase], req.rollouts));

function staged(stageConfigs: { type: string; params?: Record<string, unknown> }[], selector = 'random') {
  const view = zooView();
  const sel = build({ type: selector }, view);
  const stages = buildStages(stageConfigs, 7);
  for (const s of stages) s.init(view);
  return { sel, stages };
}

describe('greso', () => {
  it('skips with probability 1 − p^z and moves p_easy, p_hard toward the targets', () => {
    const [g] = buildStages([{ type: 'greso', params: { delta: 0.1 } }], 1) as [GresoStage];
    g.init({ ids: ['e', 'h', 'm'], features: {} });
    g.observe([
      { taskId: 'e', rewards: [1, 1, 1] }, // easy, z = 1
      { taskId: 'h', rewards: [0, 0, 0] }, // hard, z = 1
      { taskId: 'm', rewards: [1, 0, 1] },
    ]);
    // easy share 1/3 > 1/12 → p_easy = 0.5 − 0.1; hard share 1/3 > 1/6 → p_hard = 0.4
    expect(g.probabilities()).toEqual({ easy: 0.4, hard: 0.4 });
    expect(g.skipProbability('e')).toBeCloseTo(1 - 0.4, 15);
    expect(g.skipProbability('m')).toBe(0);
    g.observe([
      { taskId: 'e', rewards: [1, 1] }, // z = 2
      { taskId: 'm', rewards: [1, 0] },
      { taskId: 'x', rewards: [1, 0] }, // unknown: ignored
    ]);
    // easy share 1/2 > 1/12 → 0.3; hard share 0 < 1/6 → 0.5
    expect(g.probabilities().easy).toBeCloseTo(0.3, 15);
    expect(g.probabilities().hard).toBeCloseTo(0.5, 15);
    expect(g.skipProbability('e')).toBeCloseTo(1 - 0.3 ** 2, 15);
    expect(g.skipProbability('h')).toBeCloseTo(1 - 0.5, 15);
    g.observe([{ taskId: 'e', rewards: [0, 1] }]); // variance again: the streak resets
    expect(g.skipProbability('e')).toBe(0);
  });
});

describe('staged steps count every rollout', () => {
  it('dapo_ds over-samples, keeps only mixed groups and refills', () => {
    const { sel, stages } = staged([{ type: 'dapo_ds', params: { oversample: 1.5 } }]);
    const r = runStagedStep(sel, stages, { want: 8, groupSize: 6, step: 0 }, rolloutAt(0));
    expect(r.kept.length).toBe(8);
    for (const g of r.kept) expect(new Set(g.rewards).size).toBe(2);
    expect(r.rollouts).toBe(r.fullGroups * 6);
    expect(r.fullGroups).toBe(r.kept.length + r.discardedGroups);
    expect(r.asked).toBeGreaterThanOrEqual(12);
    expect(sel.report().groups).toBe(r.fullGroups); // the selector heard every group
  });

  it('speed screens with k rollouts, continues only 0 < pass < 1, pays for the screened-out', () => {
    const { sel, stages } = staged([{ type: 'speed', params: { screen: 2 } }]);
    const r = runStagedStep(sel, stages, { want: 8, groupSize: 6, step: 1 }, rolloutAt(1));
    expect(r.kept.length).toBe(8);
    for (const g of r.kept) expect(g.rewards.length).toBe(6);
    expect(r.screenRollouts).toBe((r.fullGroups + r.screenedOut) * 2);
    expect(r.rollouts).toBe(r.screenRollouts + r.fullGroups * 4);
    expect(sel.report().groups).toBe(r.fullGroups + r.screenedOut);
  });

  it('no stages: one round of the wanted groups, all kept', () => {
    const { sel } = staged([]);
    const r = runStagedStep(sel, [], { want: 8, groupSize: 6 }, rolloutAt(2));
    expect([r.kept.length, r.rollouts, r.rounds, r.discardedGroups]).toEqual([8, 48, 1, 0]);
  });

  it('dots probes its reference set: paid for, not kept', () => {
    const view = zooView();
    const sel = build({ type: 'dots', params: { referenceSize: 5, every: 2 } }, view);
    const r = runStagedStep(sel, [], { want: 8, groupSize: 6 }, rolloutAt(3));
    expect([r.probeRollouts, r.rollouts, r.kept.length]).toEqual([30, 30 + 48, 8]);
  });
});

function runSteps(sel: Selector, stages: PreRolloutStage[], from: number, to: number): string[][] {
  const out: string[][] = [];
  for (let t = from; t < to; t++)
    out.push(
      runStagedStep(sel, stages, { want: 6, groupSize: 6, step: t }, rolloutAt(t)).kept.map((g) => g.taskId),
    );
  return out;
}

describe('stages resume exactly', () => {
  it('bots + greso + speed: checkpoint after 5 steps, the next 5 are identical', () => {
    const configs = [
      { type: 'greso', params: { delta: 0.05 } },
      { type: 'speed', params: { screen: 2 } },
    ];
    const a = staged(configs, 'bots');
    runSteps(a.sel, a.stages, 0, 5);
    const selState = JSON.parse(JSON.stringify(a.sel.state()));
    const stageStates = JSON.parse(JSON.stringify(a.stages.map((s) => s.state())));
    const after = runSteps(a.sel, a.stages, 5, 10);
    const b = staged(configs, 'bots');
    b.sel.load(selState);
    for (const [i, s] of b.stages.entries()) s.load(stageStates[i]);
    expect(runSteps(b.sel, b.stages, 5, 10)).toEqual(after);
  });

  it('the live wrapper carries the stage states in the selector checkpoint', () => {
    const view = zooView();
    const make = () => {
      const s = new StagedSelector(buildSelector({ type: 'mopps' }, 7), buildStages([{ type: 'greso' }], 3));
      s.init(view);
      return s;
    };
    const a = make();
    const go = (s: StagedSelector, t: number) => {
      const ids = s.select(6, { step: t });
      s.feedback(ids.map((id) => ({ taskId: id, rewards: rewardsFor(id, t) })));
      return ids;
    };
    for (let t = 0; t < 6; t++) go(a, t);
    const saved = JSON.parse(JSON.stringify(a.state()));
    expect(saved.data.stages[0].type).toBe('greso');
    const after = [6, 7, 8].map((t) => go(a, t));
    const b = make();
    b.load(saved);
    expect([6, 7, 8].map((t) => go(b, t))).toEqual(after);
    // A stage that screens or filters groups makes the explorer take rounds (live-rounds.ts).
    expect(
      new StagedSelector(build({ type: 'random' }, view), buildStages([{ type: 'dapo_ds' }], 1)).needsRounds,
    ).toBe(true);
    expect(a.needsRounds).toBe(false);
  });
});
