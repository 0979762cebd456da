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
 * REINFORCE++ at the sequence level: normalise over the whole batch's rollouts (each counts once,
 * whatever its length; `reinforce_pp` is Trinity's token-level version):
 * A = (x − mean_batch(x)) / (std_batch(x) + eps), where x = r (`baseline: 'none'`) or
 * x = r − mean_g (`baseline: 'group'`, the "REINFORCE++ with baseline" variant).
 */
export const reinforcePpSeq = defineExperienceOperator({
  name: 'reinforce_pp_seq',
  kind: 'group',
  description:
    'REINFORCE++ at the sequence level: batch-normalised reward (one value per rollout), optionally after subtracting the group mean',
  params: z
    .object({
      baseline: z.enum(['none', 'group']).default('none'),
      std: stdKindParam,
      eps: epsParam,
      perToken: perTokenParam,
    })
    .strict(),
  create: (p) => ({
    name: 'reinforce_pp_seq',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('reinforce_pp_seq', batch, ctx, p.perToken, (rows, groups) => {
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
