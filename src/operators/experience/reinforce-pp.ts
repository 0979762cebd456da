import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { applyAdvantages, countSingletons, perTokenParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { weightedMean } from './stats.ts';
import { responseTokenCount } from './token-mask.ts';

/**
 * REINFORCE++ as Trinity-RFT's `reinforceplusplus` (γ = 1): every policy token of a response
 * carries the response's reward as its return, and the returns are whitened over all policy
 * tokens of the batch — A = (r − μ) / √(v + eps), μ the token mean, v the token variance with
 * Bessel's correction (÷ N − 1, N the batch's policy tokens). A response weighs by its length.
 * Trinity also adds 1e-8 to N in the mean; we do not, so a batch of equal rewards gets exactly 0.
 */
export const reinforcePp = defineExperienceOperator({
  name: 'reinforce_pp',
  kind: 'group',
  description:
    "REINFORCE++ (Trinity's reinforceplusplus): reward whitened over every policy token of the batch",
  params: z
    .object({
      eps: z
        .number()
        .nonnegative()
        .default(1e-8)
        .describe("added to the token variance before the square root (Trinity's fixed 1e-8)"),
      perToken: perTokenParam,
    })
    .strict(),
  create: (p) => ({
    name: 'reinforce_pp',
    kind: 'group',
    process: (batch, ctx) =>
      applyAdvantages('reinforce_pp', batch, ctx, p.perToken, (rows, groups) => {
        const weights = rows.map(policyTokens);
        const untokenized = weights.every((w) => w === 0);
        if (untokenized && rows.length > 0)
          ctx.warn(
            'reinforce_pp: no experience has tokens; every rollout weighs 1 (sequence-level whitening)',
          );
        const w = untokenized ? weights.map(() => 1) : weights;
        const r = rows.map((e) => e.reward);
        const { mu, variance, tokens } = tokenStats(r, w);
        const scale = Math.sqrt(variance + p.eps);
        const advantages = r.map((x) => (scale === 0 ? 0 : (x - mu) / scale));
        return {
          advantages,
          metrics: {
            token_mean: rows.length > 0 ? mu : 0,
            token_std: Math.sqrt(variance),
            policy_tokens: tokens,
            singleton_groups: countSingletons(groups),
          },
        };
      }),
  }),
});

/** Policy tokens of a response; 0 when its mask does not line up (it then weighs nothing). */
function policyTokens(e: Experience): number {
  const n = responseTokenCount(e);
  return typeof n === 'string' ? 0 : n;
}

/** Token-weighted mean and Bessel-corrected variance of per-response values. */
export function tokenStats(
  values: readonly number[],
  weights: readonly number[],
): { mu: number; variance: number; tokens: number } {
  let tokens = 0;
  for (const w of weights) tokens += w;
  if (tokens === 0) return { mu: 0, variance: 0, tokens };
  const mu = weightedMean(values, weights);
  let ss = 0;
  for (let i = 0; i < values.length; i++) ss += weights[i]! * (values[i]! - mu) ** 2;
  return { mu, variance: tokens > 1 ? ss / (tokens - 1) : 0, tokens };
}
