import { describe, expect, it } from 'vitest';
import { joinRuns } from '../../bench/learning-curriculum/join-runs.ts';
import type { LearningCurve } from '../../bench/learning-curriculum/learner.ts';
import { budgetCurve } from '../../bench/learning-curriculum/report.ts';
import { evaluateComparison } from '../../bench/protocol/evaluate.ts';
import type { ProtocolMethod } from '../../bench/protocol/method.ts';
import { PUBLISHED_DEFAULTS } from '../../bench/protocol/tuning.ts';

// Joining the runs of two bench curriculum outputs (the line-up at one commit, a new method at
// another) into one protocol table, allowed only where their shared runs are equal.
const curve = (selector: string, seed: number, accs: number[]): LearningCurve => ({
  selector,
  seed,
  points: accs.map((accuracy, i) => ({ step: i, updates: i, rollouts: i * 100, accuracy, levels: {} })),
  effective: 0.5,
  rollouts: (accs.length - 1) * 100,
  distinct: 10,
  picked: {},
  seconds: 1,
});
const method = (name: string): ProtocolMethod => ({
  name,
  description: name,
  information: [],
  tuning: PUBLISHED_DEFAULTS,
});
const output = (curves: LearningCurve[], names: string[]) =>
  ({
    learner: 'curriculum',
    seeds: [6, 7],
    settings: { steps: 4 },
    curves,
    protocol: evaluateComparison({
      baseline: 'random',
      methods: names.map(method),
      curves: curves.map(budgetCurve),
      rankingTuning: PUBLISHED_DEFAULTS,
    }),
  }) as unknown as Parameters<typeof joinRuns>[0][number];

const random = [curve('random', 6, [0.3, 0.35, 0.4]), curve('random', 7, [0.3, 0.32, 0.38])];
const a = [curve('a', 6, [0.3, 0.4, 0.45]), curve('a', 7, [0.3, 0.36, 0.4])];
const b = [curve('b', 6, [0.3, 0.3, 0.35]), curve('b', 7, [0.3, 0.31, 0.33])];

describe('join-runs', () => {
  it("reads the union of both outputs' runs as one comparison would", () => {
    const joined = joinRuns([
      output([...random, ...a], ['random', 'a']),
      output([...random, ...b], ['random', 'b']),
    ]);
    const whole = output([...random, ...a, ...b], ['random', 'a', 'b']);
    expect(joined.protocol).toEqual(whole.protocol);
    expect(joined.protocol.methods.map((m) => [m.method, m.rank])).toEqual([
      ['random', 2],
      ['a', 1],
      ['b', 3],
    ]);
    expect(joined.sharedRuns).toEqual(['random seed 6', 'random seed 7']);
  });

  it('refuses when a run present in both differs (the budgets would not be the same)', () => {
    const other = [random[0]!, curve('random', 7, [0.3, 0.32, 0.39])];
    expect(() =>
      joinRuns([output([...random, ...a], ['random', 'a']), output([...other, ...b], ['random', 'b'])]),
    ).toThrow('random seed 7: the outputs hold different curves');
  });
});
