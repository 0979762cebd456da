import { describe, expect, it } from 'vitest';
import {
  accuracyAt,
  type BudgetCurve,
  chargeCurve,
  checkCurve,
  normalisedAuc,
  rolloutsToTarget,
  updatesAt,
} from '../../bench/protocol/curve.ts';

const curve = (pts: Array<[number, number, number?]>): BudgetCurve => ({
  method: 'm',
  seed: 1,
  points: pts.map(([rollouts, accuracy, updates]) => ({ rollouts, accuracy, updates: updates ?? 0 })),
});

// Hand-computed: (0, 0.2) → (100, 0.4) → (300, 0.8), updates 0 → 10 → 20.
const c = curve([
  [0, 0.2, 0],
  [100, 0.4, 10],
  [300, 0.8, 20],
]);

describe('protocol curve readings', () => {
  it('reads accuracy and updates at a budget linearly between evaluations, flat past the end', () => {
    expect(accuracyAt(c, 0)).toBeCloseTo(0.2, 12);
    expect(accuracyAt(c, 50)).toBeCloseTo(0.3, 12);
    expect(accuracyAt(c, 200)).toBeCloseTo(0.6, 12);
    expect(accuracyAt(c, 300)).toBeCloseTo(0.8, 12);
    expect(accuracyAt(c, 400)).toBeCloseTo(0.8, 12);
    expect(updatesAt(c, 200)).toBeCloseTo(15, 12);
    expect(updatesAt(c, 1000)).toBe(20);
  });

  it('normalises the trapezoid AUC by the budget', () => {
    // [0,100]: 30, [100,300]: 120 → 150 / 300.
    expect(normalisedAuc(c, 300)).toBeCloseTo(0.5, 12);
    // [0,100]: 30, [100,200] up to 0.6: 50 → 80 / 200.
    expect(normalisedAuc(c, 200)).toBeCloseTo(0.4, 12);
    // Past the end the last accuracy holds: 150 + 0.8 × 100 = 230 → 230 / 400.
    expect(normalisedAuc(c, 400)).toBeCloseTo(0.575, 12);
    expect(normalisedAuc(c, 50)).toBeCloseTo(0.25, 12);
    expect(() => normalisedAuc(c, 0)).toThrow(/positive/);
  });

  it('finds rollouts to a target by linear interpolation, undefined when never reached', () => {
    expect(rolloutsToTarget(c, 0.5)).toBeCloseTo(150, 9);
    expect(rolloutsToTarget(c, 0.8)).toBeCloseTo(300, 9);
    expect(rolloutsToTarget(c, 0.1)).toBe(0);
    expect(rolloutsToTarget(c, 0.9)).toBeUndefined();
  });

  it('charges information by holding the start accuracy while the charge is spent', () => {
    const charged = chargeCurve(c, 50);
    expect(charged.points.map((p) => [p.rollouts, p.accuracy])).toEqual([
      [0, 0.2],
      [50, 0.2],
      [150, 0.4],
      [350, 0.8],
    ]);
    // [0,50]: 10, [50,150]: 30, [150,300] to 0.7: 82.5 → 122.5 / 300.
    expect(normalisedAuc(charged, 300)).toBeCloseTo(122.5 / 300, 12);
    expect(chargeCurve(c, 0)).toBe(c);
  });

  it('rejects curves that do not start at 0 rollouts or go backwards', () => {
    expect(() => checkCurve(curve([[5, 0.1]]))).toThrow(/0 rollouts/);
    expect(() =>
      checkCurve(
        curve([
          [0, 0.1],
          [10, 0.2],
          [5, 0.3],
        ]),
      ),
    ).toThrow(/decrease at point 2/);
  });
});
