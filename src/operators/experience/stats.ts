import type { Experience } from '../../core/experience.ts';

/** Which standard deviation: population divides by n, sample (Bessel) by n − 1. */
export type StdKind = 'population' | 'sample';

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
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
