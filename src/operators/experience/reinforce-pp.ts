import { z } from 'zod';
import {
  applyAdvantages,
  countSingletons,
  epsParam,
  groupMeans,
  perTokenParam,
  stdKindParam,
} from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { mean, std } from './stats.ts';

/**
 * REINFORCE++: normalise over the whole batch instead of per group:
 * A = (x − mean_batch(x)) / (std_batch(x) + eps), where x = r (`baseline: 'none'`) or
 * x = r − mean_g (`baseline: 'group'`, the "REINFORCE++ with baseline" variant).
 */
export const reinforcePp = defineExperienceOperator({
  name: 'reinforce_pp',
  kind: 'group',
  description: 'REINFORCE++ advantage: batch-normalised reward, optionally after subtracting the group mean',
  params: z
    .object({
      baseline: z.enum(['none', 'group']).default('none'),
      std: stdKindParam,
      eps: epsParam,
      perToken: perTokenParam,
    })
    .strict(),
  create: (p) => ({
    name: 'reinforce_pp',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('reinforce_pp', batch, ctx, p.perToken, (rows, groups) => {
        const means = p.baseline === 'group' ? groupMeans(rows, groups) : null;
        const x = rows.map((e, i) => e.reward - (means ? means[i]! : 0));
        const m = mean(x);
        const s = std(x, p.std);
        const advantages = x.map((v) => (s + p.eps === 0 ? 0 : (v - m) / (s + p.eps)));
        return {
          advantages,
          metrics: {
            batch_mean: x.length > 0 ? m : 0,
            batch_std: s,
            singleton_groups: countSingletons(groups),
          },
        };
      }),
  }),
});
