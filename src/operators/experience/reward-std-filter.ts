import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Drop } from '../operator.ts';
import { stdKindParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { fmt, groupIndices, isFiniteReward, std } from './stats.ts';

export const SURPLUS_REASON = 'surplus (batch already full)';

/**
 * Drops "advantage-equal" groups: when every rollout of a group got the same reward, every
 * group-baseline advantage is 0 and the group teaches nothing. More generally drops groups whose
 * reward std is ≤ `threshold`. With `refill`, the explorer over-samples (`extraGroups`) and this
 * operator keeps the first `targetGroups` surviving groups, dropping the surplus.
 */
export const rewardStdFilter = defineExperienceOperator({
  name: 'reward_std_filter',
  kind: 'group',
  description: 'drop groups whose rewards are all equal (std ≤ threshold); optionally refill to targetGroups',
  params: z
    .object({
      threshold: z.number().nonnegative().default(0),
      std: stdKindParam,
      refill: z.boolean().default(false),
      targetGroups: z.number().int().positive().optional(),
    })
    .strict()
    .superRefine((p, c) => {
      if (p.refill && p.targetGroups === undefined)
        c.addIssue({ code: 'custom', path: ['targetGroups'], message: 'refill: true needs targetGroups' });
      if (!p.refill && p.targetGroups !== undefined)
        c.addIssue({
          code: 'custom',
          path: ['targetGroups'],
          message: 'targetGroups only applies with refill: true',
        });
    }),
  create: (p) => ({
    name: 'reward_std_filter',
    kind: 'group',
    process: (batch) => {
      const groups = groupIndices(batch);
      const dropReason = new Array<string | null>(batch.length).fill(null);
      let equal = 0;
      let lowStd = 0;
      let surplus = 0;
      let kept = 0;
      for (const [gid, idx] of groups) {
        const rewards = idx.map((i) => batch[i]!.reward).filter(isFiniteReward);
        let reason: string | null = null;
        if (rewards.length === 0) reason = `group ${gid}: no finite rewards`;
        else if (rewards.every((r) => r === rewards[0])) {
          reason = `group ${gid}: all rewards equal (r=${fmt(rewards[0]!)})`;
          equal++;
        } else {
          const s = std(rewards, p.std);
          if (s <= p.threshold) {
            reason = `group ${gid}: reward std ${fmt(s)} ≤ threshold ${fmt(p.threshold)}`;
            lowStd++;
          } else if (p.refill && kept >= p.targetGroups!) {
            reason = SURPLUS_REASON;
            surplus++;
          } else kept++;
        }
        if (reason !== null) for (const i of idx) dropReason[i] = reason;
      }
      const rows: Experience[] = [];
      const dropped: Drop<Experience>[] = [];
      for (let i = 0; i < batch.length; i++) {
        const reason = dropReason[i];
        if (reason === null) rows.push(batch[i]!);
        else dropped.push({ row: batch[i]!, reason: reason! });
      }
      const metrics: Record<string, number> = {
        groups: groups.size,
        groups_kept: kept,
        groups_dropped_equal: equal,
        groups_dropped_low_std: lowStd,
        groups_dropped_surplus: surplus,
        // Share of groups with a learning signal, before the surplus cut.
        effective_group_ratio: groups.size > 0 ? (kept + surplus) / groups.size : 0,
      };
      if (p.refill) metrics.groups_short = Math.max(0, p.targetGroups! - kept);
      return { rows, dropped, metrics };
    },
  }),
});
