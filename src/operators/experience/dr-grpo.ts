import { z } from 'zod';
import { applyAdvantages, countSingletons, groupMeans, perTokenParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';

/**
 * Dr. GRPO ("GRPO done right"): A = r − mean_g. It drops GRPO's division by the group std,
 * which over-weights groups whose rewards barely differ. Its other change — no 1/|o| per-response
 * length normalisation in the loss — is the trainer's business (see docs/experience-operators.md).
 */
export const drGrpo = defineExperienceOperator({
  name: 'dr_grpo',
  kind: 'group',
  description: 'Dr. GRPO advantage: reward minus the group mean (no std normalisation)',
  params: z.object({ perToken: perTokenParam }).strict(),
  create: (p) => ({
    name: 'dr_grpo',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('dr_grpo', batch, ctx, p.perToken, (rows, groups) => {
        const means = groupMeans(rows, groups);
        return {
          advantages: rows.map((e, i) => e.reward - means[i]!),
          metrics: { singleton_groups: countSingletons(groups) },
        };
      }),
  }),
});
