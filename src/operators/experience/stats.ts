import type { Experience } from '../../core/experience.ts';

/** Which standard deviation: population divides by n, sample (Bessel) by n − 1. */
export type StdKind = 'population' | 'sample';

/** Whether every value equals the first (a flat group: its statistics are set exactly, not summed). */
function allEqual(values: readonly number[]): boolean {
  const first = values[0];
  for (const v of values) if (v !== first) return false;
  return true;
}

/**
 * Mean. Equal values give exactly that value (0.1 + 0.1 + 0.1 summed and divided by 3 is
 * 0.10000000000000002), so a flat group's deviations and std are exactly 0 in every advantage
 * function and filter.
 */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  if (allEqual(values)) return values[0]!;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Mean weighted by `weights` (equal values give exactly that value, as `mean`). */
export function weightedMean(values: readonly number[], weights: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  let w = 0;
  for (let i = 0; i < values.length; i++) {
    s += weights[i]! * values[i]!;
    w += weights[i]!;
  }
  if (w === 0) return Number.NaN;
  return allEqual(values) ? values[0]! : s / w;
}

/** Standard deviation; 0 when there are too few values to have any spread (n = 1, or n < 2 for `sample`). */
export function std(values: readonly number[], kind: StdKind = 'population'): number {
  const n = values.length;
  const denom = kind === 'population' ? n : n - 1;
  if (n === 0 || denom <= 0) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / denom);
}

/** A reward an advantage can be computed from: a finite number. */
export function isFiniteReward(reward: unknown): reward is number {
  return typeof reward === 'number' && Number.isFinite(reward);
}

/** Why a reward is unusable, or null when it is a finite number. */
export function invalidRewardReason(reward: unknown): string | null {
  if (reward === undefined || reward === null) return 'reward is missing';
  if (typeof reward !== 'number') return `reward is not a number (${typeof reward})`;
  if (Number.isNaN(reward)) return 'reward is NaN';
  if (reward === Number.POSITIVE_INFINITY) return 'reward is +Infinity';
  if (reward === Number.NEGATIVE_INFINITY) return 'reward is -Infinity';
  return null;
}

/**
 * Indices of the batch grouped by `groupId`, groups in order of first appearance and rows in
 * batch order inside each group. Group ops rely on this order for stable, golden-testable output.
 */
export function groupIndices(batch: readonly Experience[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < batch.length; i++) {
    const gid = batch[i]!.groupId;
    let list = groups.get(gid);
    if (!list) {
      list = [];
      groups.set(gid, list);
    }
    list.push(i);
  }
  return groups;
}

/** Format a number for a drop reason: integers as is, others to at most 6 significant digits. */
export function fmt(x: number): string {
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(6)));
}
