import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { defineExperienceOperator } from './define.ts';
import { isFiniteReward, mean } from './stats.ts';

/** One task's finite rewards from a batch. */
export interface TaskRewards {
  taskId: string;
  rewards: number[];
}

/** One task's pass rate (share of rewards ≥ threshold) and mean reward in a batch. */
export interface TaskPassRate extends TaskRewards {
  passRate: number;
  meanReward: number;
}

/**
 * Each task's rewards, tasks in order of first appearance and rewards in batch order — what the
 * lifecycle hands to `selector.feedback`. Non-finite rewards are skipped; a task with none left
 * is omitted (a selector must not learn from a broken reward).
 */
export function collectTaskRewards(experiences: readonly Experience[]): TaskRewards[] {
  const byTask = new Map<string, number[]>();
  for (const e of experiences) {
    let list = byTask.get(e.taskId);
    if (!list) {
      list = [];
      byTask.set(e.taskId, list);
    }
    if (isFiniteReward(e.reward)) list.push(e.reward);
  }
  const out: TaskRewards[] = [];
  for (const [taskId, rewards] of byTask) if (rewards.length > 0) out.push({ taskId, rewards });
  return out;
}

/** `collectTaskRewards` plus each task's pass rate and mean reward. */
export function computeTaskPassRates(experiences: readonly Experience[], threshold = 1): TaskPassRate[] {
  return collectTaskRewards(experiences).map(({ taskId, rewards }) => ({
    taskId,
    rewards,
    passRate: rewards.filter((r) => r >= threshold).length / rewards.length,
    meanReward: mean(rewards),
  }));
}

/**
 * Reports per-task pass rates for the step and leaves rows untouched. Run it before group
 * filters: reward_std_filter removes exactly the all-pass/all-fail tasks a selector needs to see.
 */
export const passRate = defineExperienceOperator({
  name: 'pass_rate',
  kind: 'map',
  description: 'report per-task pass rate and mean reward (rows unchanged; feeds the selector)',
  params: z.object({ threshold: z.number().default(1) }).strict(),
  create: (p) => ({
    name: 'pass_rate',
    kind: 'map',
    process: (batch) => {
      const tasks = computeTaskPassRates(batch, p.threshold);
      const finite = batch.map((e) => e.reward).filter(isFiniteReward);
      const allPass = tasks.filter((t) => t.passRate === 1).length;
      const nonePass = tasks.filter((t) => t.passRate === 0).length;
      const mixed = tasks.filter((t) => t.rewards.some((r) => r !== t.rewards[0])).length;
      return {
        rows: batch.slice(),
        dropped: [],
        metrics: {
          tasks: tasks.length,
          pass_rate: tasks.length > 0 ? mean(tasks.map((t) => t.passRate)) : 0,
          mean_reward: finite.length > 0 ? mean(finite) : 0,
          tasks_all_pass: allPass,
          tasks_none_pass: nonePass,
          tasks_mixed_rewards: mixed,
          effective_task_ratio: tasks.length > 0 ? mixed / tasks.length : 0,
          invalid_rewards: batch.length - finite.length,
        },
      };
    },
  }),
});
