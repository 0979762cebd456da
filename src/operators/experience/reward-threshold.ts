import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { type Drop, filterRows, type OperatorResult } from '../operator.ts';
import { defineExperienceOperator } from './define.ts';
import { fmt, groupIndices, invalidRewardReason, isFiniteReward, mean } from './stats.ts';

/**
 * Keeps rewards inside [min, max] (both inclusive, either optional). In `experience` mode each
 * rollout is judged alone (non-finite rewards are dropped too); in `group` mode a group is kept
 * or dropped whole, by the mean of its finite rewards.
 */
export const rewardThreshold = defineExperienceOperator({
  name: 'reward_threshold',
  kind: 'group',
  description: 'drop experiences (or whole groups, by mean) whose reward is below min or above max',
  params: z
    .object({
      min: z.number().optional(),
      max: z.number().optional(),
      mode: z.enum(['experience', 'group']).default('experience'),
    })
    .strict()
    .superRefine((p, c) => {
      if (p.min === undefined && p.max === undefined)
        c.addIssue({ code: 'custom', path: ['min'], message: 'set min, max or both' });
      if (p.min !== undefined && p.max !== undefined && p.min > p.max)
        c.addIssue({ code: 'custom', path: ['max'], message: `max (${p.max}) must be ≥ min (${p.min})` });
    }),
  create: (p) => {
    const outside = (r: number, what: string): string | null => {
      if (p.min !== undefined && r < p.min) return `${what} ${fmt(r)} < min ${fmt(p.min)}`;
      if (p.max !== undefined && r > p.max) return `${what} ${fmt(r)} > max ${fmt(p.max)}`;
      return null;
    };
    return {
      name: 'reward_threshold',
      kind: 'group',
      process: (batch): OperatorResult<Experience> => {
        if (p.mode === 'experience') {
          const res = filterRows(batch, (e) => invalidRewardReason(e.reward) ?? outside(e.reward, 'reward'));
          return { ...res, metrics: { kept: res.rows.length, dropped: res.dropped.length } };
        }
        const groups = groupIndices(batch);
        const reasons = new Array<string | null>(batch.length).fill(null);
        let groupsDropped = 0;
        for (const [gid, idx] of groups) {
          const rewards = idx.map((i) => batch[i]!.reward).filter(isFiniteReward);
          const why = rewards.length === 0 ? 'no finite rewards' : outside(mean(rewards), 'mean reward');
          if (why === null) continue;
          groupsDropped++;
          for (const i of idx) reasons[i] = `group ${gid}: ${why}`;
        }
        const rows: Experience[] = [];
        const dropped: Drop<Experience>[] = [];
        batch.forEach((e, i) => {
          const r = reasons[i];
          if (r === null) rows.push(e);
          else dropped.push({ row: e, reason: r! });
        });
        return {
          rows,
          dropped,
          metrics: {
            groups: groups.size,
            groups_dropped: groupsDropped,
            kept: rows.length,
            dropped: dropped.length,
          },
        };
      },
    };
  },
});
