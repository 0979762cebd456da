import { z } from 'zod';
import { applyAdvantages, countSingletons, perTokenParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { mean } from './stats.ts';

/**
 * OPMD (online policy mirror descent, Trinity-RFT's `opmd`): A = r − b_g with the group baseline
 * b_g = mean(r) (`baseline: mean`) or b_g = τ·log((1/G)·Σ exp(r_j/τ)) (`baseline: logavgexp`, a
 * soft maximum: mean ≤ b_g ≤ max, → mean as τ → ∞, → max as τ → 0). A group of one has A = 0.
 */
export const opmd = defineExperienceOperator({
  name: 'opmd',
  kind: 'group',
  description: 'OPMD advantage: reward minus a group baseline (the mean, or τ·log-mean-exp of the rewards)',
  params: z
    .object({
      baseline: z.enum(['mean', 'logavgexp']).default('mean').describe("Trinity's opmd_baseline"),
      tau: z.number().positive().default(1).describe('temperature τ of the logavgexp baseline'),
      perToken: perTokenParam,
    })
    .strict(),
  create: (p) => ({
    name: 'opmd',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('opmd', batch, ctx, p.perToken, (rows, groups) => {
        const advantages = new Array<number>(rows.length).fill(0);
        const baselines: number[] = [];
        for (const idx of groups.values()) {
          if (idx.length < 2) continue;
          const r = idx.map((i) => rows[i]!.reward);
          const b = p.baseline === 'mean' ? mean(r) : logAvgExp(r, p.tau);
          baselines.push(b);
          for (const i of idx) advantages[i] = rows[i]!.reward - b;
        }
        return {
          advantages,
          metrics: {
            singleton_groups: countSingletons(groups),
            baseline_mean: baselines.length > 0 ? mean(baselines) : 0,
          },
        };
      }),
  }),
});

/** τ·log((1/n)·Σ exp(x_i/τ)), shifted by the maximum so large rewards or small τ cannot overflow. */
export function logAvgExp(xs: readonly number[], tau: number): number {
  // Shifted by the largest reward in reward units, so equal rewards give exactly that reward.
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) m = Math.max(m, x);
  let s = 0;
  for (const x of xs) s += Math.exp((x - m) / tau);
  return m + tau * Math.log(s / xs.length);
}
