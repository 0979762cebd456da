// The regimes of the selection sweep (issue #22): one factor at a time around the default scenario.
import { hashSeed, Rng } from '../../src/core/rng.ts';
import { type LearnerSimConfigInput, LearnerSimConfigSchema } from '../../src/selectors/sim/learner-sim.ts';

export const SWEEP_FACTORS = ['easy-hard', 'group-size', 'noise', 'pool-size'] as const;
export type SweepFactor = (typeof SWEEP_FACTORS)[number];

/** One point of a sweep: the simulator settings that differ from the default scenario's. */
export interface SweepPoint {
  factor: SweepFactor;
  /** What the point sets, in words (e.g. "60% unusable (17% easy, 43% hard)", "G = 4"). */
  label: string;
  /** The factor's value (unusable share, group size, flip probability, tasks). */
  value: number;
  sim: LearnerSimConfigInput;
  /** The default scenario's point of this factor. */
  isDefault: boolean;
}

/** A task is unusable at the start when its pass rate is below 0.05 (too hard) or above 0.95 (too easy). */
export const UNUSABLE_LOW = 0.05;
export const UNUSABLE_HIGH = 0.95;

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * The expected shares of too-easy and too-hard tasks at the start for a difficulty distribution
 * N(mean, sd²), by Monte Carlo over the simulator's item-response model with its other defaults
 * (a fixed seeded sample, so calibration is deterministic).
 */
export function startShares(mean: number, sd: number, samples = 20_000): { easy: number; hard: number } {
  const c = LearnerSimConfigSchema.parse({});
  const rng = new Rng(hashSeed('sweep-calibration'));
  let easy = 0;
  let hard = 0;
  for (let i = 0; i < samples; i++) {
    const a = c.discriminationScale * Math.exp(rng.normal(0, c.discriminationLogSd));
    const ability = c.theta0 + rng.normal(0, c.learnerDomainSd) + rng.normal(0, c.taskSd);
    const p = sigmoid(a * (ability - (mean + sd * rng.normal())));
    if (p > UNUSABLE_HIGH) easy++;
    else if (p < UNUSABLE_LOW) hard++;
  }
  return { easy: easy / samples, hard: hard / samples };
}

/**
 * Difficulty mean and sd that give `easy` and `hard` shares at the start: the sd sets the total
 * (a wider spread leaves more tasks outside [0.05, 0.95]), the mean the split (harder tasks shift
 * the split toward too-hard). Nested bisection on the Monte Carlo shares.
 */
export function calibrateDifficulty(
  easy: number,
  hard: number,
): { difficultyMean: number; difficultySd: number } {
  const total = easy + hard;
  const hardShare = hard / total;
  const splitFor = (sd: number): number => {
    let lo = -8;
    let hi = 8;
    for (let i = 0; i < 30; i++) {
      const mid = (lo + hi) / 2;
      const s = startShares(mid, sd, 4000);
      const h = s.hard / Math.max(1e-9, s.easy + s.hard);
      if (h < hardShare) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  let lo = 0.05;
  let hi = 12;
  for (let i = 0; i < 22; i++) {
    const sd = (lo + hi) / 2;
    const s = startShares(splitFor(sd), sd, 4000);
    if (s.easy + s.hard < total) lo = sd;
    else hi = sd;
  }
  const sd = (lo + hi) / 2;
  return { difficultyMean: splitFor(sd), difficultySd: sd };
}

/** The default scenario's start: ~18% too easy, ~44% too hard (measured on seeds 1, 6, 7). */
const EASY_HARD_POINTS: Array<{ easy: number; hard: number; isDefault?: boolean }> = [
  { easy: 0.06, hard: 0.14 },
  { easy: 0.12, hard: 0.28 },
  { easy: 0.18, hard: 0.44, isDefault: true },
  { easy: 0.24, hard: 0.56 },
  { easy: 0.05, hard: 0.55 },
  { easy: 0.55, hard: 0.05 },
];

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The points of one factor; `poolSizes` overrides the pool-size points (e.g. a tiny test). */
export function sweepPoints(factor: SweepFactor, poolSizes?: readonly number[]): SweepPoint[] {
  switch (factor) {
    case 'easy-hard':
      return EASY_HARD_POINTS.map(({ easy, hard, isDefault }) => ({
        factor,
        label: `${pct(easy + hard)} unusable (${pct(easy)} easy, ${pct(hard)} hard)`,
        value: easy + hard,
        // The default point keeps the simulator's own defaults (mean 0, sd 2.8), not a calibration.
        sim: isDefault ? {} : calibrateDifficulty(easy, hard),
        isDefault: isDefault === true,
      }));
    case 'group-size':
      return [4, 8, 16, 32].map((g) => ({
        factor,
        label: `G = ${g}`,
        value: g,
        sim: g === 16 ? {} : { groupSize: g },
        isDefault: g === 16,
      }));
    case 'noise':
      return [0, 0.1, 0.2, 0.3].map((eps) => ({
        factor,
        label: `flip ${eps}`,
        value: eps,
        sim: eps === 0 ? {} : { rewardNoise: eps },
        isDefault: eps === 0,
      }));
    case 'pool-size':
      return (poolSizes ?? [1000, 10_000, 100_000, 1_000_000]).map((n) => ({
        factor,
        label: `${n.toLocaleString('en-US')} tasks`,
        value: n,
        sim: n === 4000 ? {} : { tasks: n },
        isDefault: n === 4000,
      }));
  }
}
