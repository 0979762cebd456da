import { z } from 'zod';
import { applyAdvantages, countSingletons, groupMeans, perTokenParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';

/**
 * RLOO (REINFORCE leave-one-out): the baseline of each rollout is the mean of the *other*
 * rollouts of its group: A_i = r_i − mean_{j≠i} r_j = G/(G−1) · (r_i − mean_g).
 * A group of one has no "others": its advantage is 0 and `singleton_groups` counts it.
 */
export const rloo = defineExperienceOperator({
  name: 'rloo',
  kind: 'group',
  description: 'RLOO advantage: reward minus the mean reward of the other rollouts of the group',
  params: z.object({ perToken: perTokenParam }).strict(),
  create: (p) => ({
    name: 'rloo',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('rloo', batch, ctx, p.perToken, (rows, groups, c) => {
        const means = groupMeans(rows, groups);
        const advantages = new Array<number>(rows.length).fill(0);
        for (const idx of groups.values()) {
          const g = idx.length;
          if (g < 2) continue;
          for (const i of idx) advantages[i] = (g / (g - 1)) * (rows[i]!.reward - means[i]!);
        }
        const singletons = countSingletons(groups);
        if (singletons > 0)
          c.warn(
            `rloo: ${singletons} group(s) have a single rollout; their advantage is 0 (no leave-one-out baseline)`,
          );
        return { advantages, metrics: { singleton_groups: singletons } };
      }),
  }),
});
