import { z } from 'zod';
import type { Experience } from './experience.ts';
import type { Message } from './task.ts';

/**
 * Preference pairs from experience groups, shared by the DPO trainer and the DPO exports.
 *
 * Within each group (`groupId`: one task's rollouts in one explorer step) the chosen response is
 * the one with the highest reward and the rejected one the lowest. Among equal best (or equal
 * worst) rewards the rollout with the lowest `runIndex` wins, then the smallest `id` (code-unit
 * order), so the same batch always gives the same pairs whatever its row order.
 *
 * A group yields no pair, and is recorded in `dropped` with its reason, when it has fewer than
 * two rollouts, a reward that is NaN or infinite, rollouts of different tasks, all rewards equal
 * (a tie), or a best−worst margin below `minMargin`. Every group of the input appears exactly
 * once, in `pairs` or in `dropped`, in the order of its first row.
 */

export const PreferencePairOptionsSchema = z.strictObject({
  minMargin: z
    .number()
    .nonnegative()
    .default(0)
    .describe('Smallest chosen−rejected reward difference kept; a tie (difference 0) is always dropped.'),
});
export type PreferencePairOptions = z.output<typeof PreferencePairOptionsSchema>;

export interface PreferencePair {
  groupId: string;
  taskId: string;
  prompt?: string;
  messages?: Message[];
  chosen: Experience;
  rejected: Experience;
  /** chosen.reward − rejected.reward; always > 0 and ≥ minMargin. */
  margin: number;
}

export const PAIR_DROP_REASONS = [
  'single_rollout',
  'invalid_reward',
  'mixed_tasks',
  'tie',
  'below_margin',
] as const;
export type PairDropReason = (typeof PAIR_DROP_REASONS)[number];

export interface DroppedGroup {
  groupId: string;
  taskId: string;
  reason: PairDropReason;
  /** One line for humans: the numbers behind the reason. */
  detail: string;
}

export interface PreferencePairResult {
  pairs: PreferencePair[];
  dropped: DroppedGroup[];
}

/** Strict "better representative" order: lower runIndex first, then smaller id. */
function comesFirst(a: Experience, b: Experience): boolean {
  if (a.runIndex !== b.runIndex) return a.runIndex < b.runIndex;
  return a.id < b.id;
}

function groupsInOrder(batch: readonly Experience[]): Map<string, Experience[]> {
  const groups = new Map<string, Experience[]>();
  for (const e of batch) {
    const rows = groups.get(e.groupId);
    if (rows) rows.push(e);
    else groups.set(e.groupId, [e]);
  }
  return groups;
}

function pairOrDrop(groupId: string, rows: Experience[], minMargin: number): PreferencePair | DroppedGroup {
  const first = rows[0] as Experience;
  const drop = (reason: PairDropReason, detail: string): DroppedGroup => ({
    groupId,
    taskId: first.taskId,
    reason,
    detail,
  });
  if (rows.length < 2) return drop('single_rollout', `group has ${rows.length} rollout; a pair needs 2`);
  const invalid = rows.find((e) => !Number.isFinite(e.reward));
  if (invalid) return drop('invalid_reward', `rollout ${invalid.id} has reward ${invalid.reward}`);
  const otherTask = rows.find((e) => e.taskId !== first.taskId);
  if (otherTask) return drop('mixed_tasks', `rollouts of tasks ${first.taskId} and ${otherTask.taskId}`);
  let best = first;
  let worst = first;
  for (const e of rows.slice(1)) {
    if (e.reward > best.reward || (e.reward === best.reward && comesFirst(e, best))) best = e;
    if (e.reward < worst.reward || (e.reward === worst.reward && comesFirst(e, worst))) worst = e;
  }
  const margin = best.reward - worst.reward;
  if (margin === 0) return drop('tie', `all ${rows.length} rollouts have reward ${best.reward}`);
  if (margin < minMargin) return drop('below_margin', `margin ${margin} < minMargin ${minMargin}`);
  return {
    groupId,
    taskId: first.taskId,
    ...(best.prompt !== undefined ? { prompt: best.prompt } : {}),
    ...(best.messages !== undefined ? { messages: best.messages } : {}),
    chosen: best,
    rejected: worst,
    margin,
  };
}

/** Pairs (best vs worst reward per group) and the groups that gave none, with their reasons. */
export function buildPreferencePairs(
  batch: readonly Experience[],
  options: Partial<PreferencePairOptions> = {},
): PreferencePairResult {
  const { minMargin } = PreferencePairOptionsSchema.parse(options);
  const pairs: PreferencePair[] = [];
  const dropped: DroppedGroup[] = [];
  for (const [groupId, rows] of groupsInOrder(batch)) {
    const out = pairOrDrop(groupId, rows, minMargin);
    if ('reason' in out) dropped.push(out);
    else pairs.push(out);
  }
  return { pairs, dropped };
}

/** Dropped groups counted by reason (every reason present, zeros included), for metrics. */
export function countDropReasons(dropped: readonly DroppedGroup[]): Record<PairDropReason, number> {
  const counts = Object.fromEntries(PAIR_DROP_REASONS.map((r) => [r, 0])) as Record<PairDropReason, number>;
  for (const d of dropped) counts[d.reason] += 1;
  return counts;
}
