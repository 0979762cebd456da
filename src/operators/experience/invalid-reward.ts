import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Drop } from '../operator.ts';
import { defineExperienceOperator } from './define.ts';
import { groupIndices, invalidRewardReason } from './stats.ts';

/**
 * Drops rollouts whose reward is NaN, ±Infinity or missing, saying which. With `scope: group`
 * the rest of such a rollout's group goes too (a group with a hole biases group baselines).
 */
export const invalidReward = defineExperienceOperator({
  name: 'invalid_reward',
  kind: 'filter',
  description: 'drop experiences whose reward is NaN, ±Infinity or missing (optionally their whole group)',
  params: z.object({ scope: z.enum(['experience', 'group']).default('experience') }).strict(),
  create: (p) => ({
    name: 'invalid_reward',
    kind: 'filter',
    process: (batch) => {
      const reasons = batch.map((e) => invalidRewardReason(e.reward));
      const counts = { nan: 0, pos_inf: 0, neg_inf: 0, missing: 0, other: 0, groupmates: 0 };
      for (const e of batch) {
        const r = e.reward as unknown;
        if (r === undefined || r === null) counts.missing++;
        else if (typeof r !== 'number') counts.other++;
        else if (Number.isNaN(r)) counts.nan++;
        else if (r === Number.POSITIVE_INFINITY) counts.pos_inf++;
        else if (r === Number.NEGATIVE_INFINITY) counts.neg_inf++;
      }
      if (p.scope === 'group') {
        for (const [gid, idx] of groupIndices(batch)) {
          const bad = idx.find((i) => reasons[i] !== null);
          if (bad === undefined) continue;
          const culprit = `group ${gid}: run ${batch[bad]!.runIndex} has an invalid reward (${reasons[bad]})`;
          for (const i of idx)
            if (reasons[i] === null) {
              reasons[i] = culprit;
              counts.groupmates++;
            }
        }
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
          dropped_nan: counts.nan,
          dropped_pos_inf: counts.pos_inf,
          dropped_neg_inf: counts.neg_inf,
          dropped_missing: counts.missing,
          dropped_not_number: counts.other,
          dropped_groupmates: counts.groupmates,
        },
      };
    },
  }),
});
