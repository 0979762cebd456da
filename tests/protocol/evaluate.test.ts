import { describe, expect, it } from 'vitest';
import type { BudgetCurve } from '../../bench/protocol/curve.ts';
import { evaluateComparison } from '../../bench/protocol/evaluate.ts';
import { informationCharge, informationSourceSchema } from '../../bench/protocol/information.ts';
import { pairedDifference, pairedRatio } from '../../bench/protocol/interval.ts';
import { protocolMarkdown } from '../../bench/protocol/markdown.ts';
import type { ProtocolMethod } from '../../bench/protocol/method.ts';
import { runComparison } from '../../bench/protocol/run.ts';
import { PUBLISHED_DEFAULTS } from '../../bench/protocol/tuning.ts';

const curve = (method: string, seed: number, pts: Array<[number, number]>): BudgetCurve => ({
  method,
  seed,
  points: pts.map(([rollouts, accuracy], k) => ({ rollouts, accuracy, updates: k })),
});
const method = (name: string, extra: Partial<ProtocolMethod> = {}): ProtocolMethod => ({
  name,
  description: name,
  information: [],
  tuning: PUBLISHED_DEFAULTS,
  ...extra,
});

const methods = [
  method('random'),
  method('fast'),
  method('charged', {
    information: [{ kind: 'learner_pass_rates', columns: ['weak_pass_rate'], rolloutsPerTask: 1, tasks: 20 }],
  }),
  method('oracle', { information: [{ kind: 'oracle', columns: ['true_pass_rate'] }] }),
  method('tuned', { tuning: { kind: 'asymmetric', note: 'by hand on seeds 1–5' } }),
];
// Seed 1's budget is 100 rollouts, seed 2's 200.
const curves = [
  curve('random', 1, [
    [0, 0.2],
    [100, 0.6],
  ]),
  curve('random', 2, [
    [0, 0.2],
    [200, 0.6],
  ]),
  curve('fast', 1, [
    [0, 0.2],
    [50, 0.6],
    [100, 0.6],
  ]),
  curve('fast', 2, [
    [0, 0.2],
    [100, 0.6],
    [200, 0.6],
  ]),
  curve('charged', 1, [
    [0, 0.2],
    [50, 0.6],
    [80, 0.6],
  ]),
  curve('charged', 2, [
    [0, 0.2],
    [100, 0.6],
    [180, 0.6],
  ]),
  curve('oracle', 1, [
    [0, 0.2],
    [10, 0.9],
    [100, 0.9],
  ]),
  curve('oracle', 2, [
    [0, 0.2],
    [20, 0.9],
    [200, 0.9],
  ]),
  curve('tuned', 1, [
    [0, 0.2],
    [5, 1],
    [100, 1],
  ]),
  curve('tuned', 2, [
    [0, 0.2],
    [10, 1],
    [200, 1],
  ]),
];

describe('evaluateComparison', () => {
  const report = evaluateComparison({
    baseline: 'random',
    methods,
    curves,
    rankingTuning: PUBLISHED_DEFAULTS,
  });
  const get = (name: string) => report.methods.find((m) => m.method === name)!;

  it('computes normalised AUC, budgets and targets on hand-computed curves', () => {
    expect(report.budgetPerSeed).toEqual({ '1': 100, '2': 200 });
    expect(get('random').auc.mean).toBeCloseTo(0.4, 12);
    // [0,50]: 20 + [50,100]: 30 → 0.5 on both seeds.
    expect(get('fast').auc.mean).toBeCloseTo(0.5, 12);
    expect(get('fast').auc.vsBaseline).toMatchObject({ n: 2 });
    expect(get('fast').auc.vsBaseline.mean).toBeCloseTo(0.1, 12);
    expect(get('fast').auc.vsBaseline.lo).toBeCloseTo(0.1, 12);
    // Charged 20 rollouts: [0,20]: 4, [20,70]: 20, [70,100]: 18 → 0.42 on seed 1; seed 2:
    // [0,20]: 4, [20,120]: 40, [120,200]: 48 → 0.46.
    expect(get('charged').information.chargedRollouts).toBe(20);
    expect(get('charged').auc.mean).toBeCloseTo((0.42 + 0.46) / 2, 12);
    const quarter = get('fast').budgets[0]!;
    expect(quarter.share).toBe(0.25);
    expect(quarter.rollouts).toBeCloseTo(37.5, 12);
    // At 25 (seed 1) and 50 (seed 2) rollouts: random 0.3 and 0.3, fast 0.4 and 0.4.
    expect(quarter.accuracy).toBeCloseTo(0.4, 12);
    expect(get('random').budgets[0]!.accuracy).toBeCloseTo(0.3, 12);
    // Target at 50% of the gain: 0.4; random reaches it at 50 and 100, fast at 25 and 50.
    const half = get('fast').targets[0]!;
    expect(half.target).toBeCloseTo(0.4, 12);
    expect(half.rollouts).toBeCloseTo(37.5, 12);
    expect(half.reached).toBe(2);
    expect(half.vsBaseline.ratio).toBeCloseTo(0.5, 12);
  });

  it('ranks by mean AUC; an oracle column or another tuning rule never enters the ranking', () => {
    expect(get('fast').rank).toBe(1);
    expect(get('charged').rank).toBe(2);
    expect(get('random').rank).toBe(3);
    // The oracle and the hand-tuned method have the highest AUCs, yet stay outside.
    expect(get('oracle').auc.mean).toBeGreaterThan(get('fast').auc.mean);
    expect(get('oracle').rank).toBeNull();
    expect(get('oracle').unranked).toMatch(/^oracle/);
    expect(get('tuned').rank).toBeNull();
    expect(get('tuned').unranked).toMatch(/another rule/);
    // …and are never the "best other" a ranked method is compared with.
    expect(get('fast').auc.vsBestOther.other).toBe('charged');
    expect(get('random').auc.vsBestOther.other).toBe('fast');
    expect(get('oracle').auc.vsBestOther.other).toBe('fast');
  });

  it('prints the Markdown table ranked first, oracles and other tunings after, labelled', () => {
    const md = protocolMarkdown(report).split('\n');
    expect(md.slice(2).map((l) => l.split(' | ').slice(0, 3).join(' | '))).toEqual([
      '| 1 | fast | 50.0',
      '| 2 | charged | 44.0',
      '| 3 | random | 40.0',
      '| oracle | oracle | 86.5',
      '| unranked | tuned | 98.0',
    ]);
    expect(md[2]).toContain('+10.0 [+10.0, +10.0]');
    expect(md[3]).toContain('| 20 | published defaults (no tuning) |');
  });

  it('refuses an uncharged pass-rate column of the learner', () => {
    const free = { kind: 'learner_pass_rates', columns: ['weak_pass_rate'], rolloutsPerTask: 0, tasks: 800 };
    expect(informationSourceSchema.safeParse(free).success).toBe(false);
    expect(() => informationCharge([free as never])).toThrow();
    expect(() =>
      evaluateComparison({
        baseline: 'random',
        methods: [method('random'), method('free', { information: [free as never] })],
        curves: [
          curve('random', 1, [
            [0, 0.2],
            [100, 0.6],
          ]),
          curve('free', 1, [
            [0, 0.2],
            [100, 0.9],
          ]),
        ],
        rankingTuning: PUBLISHED_DEFAULTS,
      }),
    ).toThrow();
  });

  it('throws when a method lacks a seed the baseline ran', () => {
    expect(() =>
      evaluateComparison({
        baseline: 'random',
        methods: [method('random'), method('fast')],
        curves: curves.filter((c) => !(c.method === 'fast' && c.seed === 2)),
        rankingTuning: PUBLISHED_DEFAULTS,
      }),
    ).toThrow(/no curve of fast on seed 2/);
  });
});

describe('paired intervals', () => {
  it('bootstrap the mean paired difference, seeded and within the sample range', () => {
    const a = pairedDifference([1, 2, 3], [0, 0, 0], 'x');
    expect(a.mean).toBe(2);
    expect(a.lo).toBeGreaterThanOrEqual(1);
    expect(a.hi).toBeLessThanOrEqual(3);
    expect(a.lo).toBeLessThan(a.hi);
    expect(pairedDifference([1, 2, 3], [0, 0, 0], 'x')).toEqual(a);
    expect(pairedDifference([0.5], [0.2], 'y')).toEqual({
      mean: 0.5 - 0.2,
      lo: 0.5 - 0.2,
      hi: 0.5 - 0.2,
      n: 1,
    });
    expect(pairedRatio([1, 1], [2, 2], 'z')).toEqual({ ratio: 0.5, lo: 0.5, hi: 0.5 });
  });
});

describe('runComparison', () => {
  it('gives every method the baseline budget of its seed less its information charge', async () => {
    const asked: Array<[string, number, number | null]> = [];
    await runComparison({
      baseline: methods[0]!,
      methods: methods.slice(0, 3),
      seeds: [1, 2],
      run: async (m, seed, budget) => {
        asked.push([m.name, seed, budget]);
        return curve(m.name, seed, [
          [0, 0.2],
          [seed * 100, 0.5],
        ]);
      },
    });
    expect(asked).toEqual([
      ['random', 1, null],
      ['fast', 1, 100],
      ['charged', 1, 80],
      ['random', 2, null],
      ['fast', 2, 200],
      ['charged', 2, 180],
    ]);
  });
});
