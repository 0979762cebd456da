import { z } from 'zod';
import { applyAdvantages, countSingletons, epsParam, perTokenParam, stdKindParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { mean, std } from './stats.ts';

/**
 * GRPO: each rollout is compared with its own group.
 * A = (r − mean_g) / (std_g + eps), or A = r − mean_g with `stdNormalize: false`.
 */
export const grpo = defineExperienceOperator({
  name: 'grpo',
  kind: 'group',
  description: 'GRPO advantage: reward minus the group mean, divided by the group std (+ eps)',
  params: z
    .object({
      stdNormalize: z.boolean().default(true),
      std: stdKindParam,
      eps: epsParam,
      perToken: perTokenParam,
    })
    .strict(),
  create: (p) => ({
    name: 'grpo',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('grpo', batch, ctx, p.perToken, (rows, groups) => {
        const advantages = new Array<number>(rows.length).fill(0);
        for (const idx of groups.values()) {
          const rewards = idx.map((i) => rows[i]!.reward);
          const m = mean(rewards);
          const s = std(rewards, p.std);
          for (const i of idx) {
            const d = rows[i]!.reward - m;
            // s + eps is 0 only when eps = 0 and the group is flat, where d is 0 too.
            advantages[i] = p.stdNormalize ? (s + p.eps === 0 ? 0 : d / (s + p.eps)) : d;
          }
        }
        return { advantages, metrics: { singleton_groups: countSingletons(groups) } };
      }),
  }),
});
