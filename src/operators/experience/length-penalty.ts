import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { defineExperienceOperator } from './define.ts';
import { responseTokenCount } from './token-mask.ts';

/** Length of a response in Unicode code points (not UTF-16 units), so emoji count once. */
function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * reward −= coef × max(0, length − target). Length is counted in policy tokens of the response
 * (prompt and environment tokens excluded) or in characters. With `only_correct`, only rollouts
 * whose reward is ≥ `correct_threshold` are penalised, so a long right answer still beats a
 * short wrong one only by the margin the user chose.
 */
export const lengthPenalty = defineExperienceOperator({
  name: 'length_penalty',
  kind: 'map',
  description: 'subtract coef × max(0, length − target) from the reward',
  params: z
    .object({
      coef: z.number().nonnegative(),
      target: z.number().int().nonnegative().default(0),
      unit: z.enum(['tokens', 'chars']).default('tokens'),
      onlyCorrect: z.boolean().default(false),
      correctThreshold: z.number().default(1),
    })
    .strict(),
  create: (p) => ({
    name: 'length_penalty',
    kind: 'map',
    process: (batch, ctx) => {
      const rows: Experience[] = [];
      let penalised = 0;
      let penaltySum = 0;
      let lengthSum = 0;
      let measured = 0;
      let unmeasurable = 0;
      for (const e of batch) {
        let len: number | string;
        if (p.unit === 'chars') len = charLength(e.response);
        else if (e.tokens.length === 0) len = 'no tokens';
        else len = responseTokenCount(e);
        if (typeof len === 'string') {
          unmeasurable++;
          rows.push(e);
          continue;
        }
        measured++;
        lengthSum += len;
        const eligible = !p.onlyCorrect || e.reward >= p.correctThreshold;
        const penalty = eligible ? p.coef * Math.max(0, len - p.target) : 0;
        if (penalty > 0) {
          penalised++;
          penaltySum += penalty;
          rows.push({ ...e, reward: e.reward - penalty });
        } else rows.push(e);
      }
      if (unmeasurable > 0)
        ctx.warn(
          `length_penalty: ${unmeasurable} experience(s) have no usable token counts and were left unpenalised (use unit: chars?)`,
        );
      return {
        rows,
        dropped: [],
        metrics: {
          penalised,
          penalty_sum: penaltySum,
          mean_length: measured > 0 ? lengthSum / measured : 0,
          unmeasurable,
        },
      };
    },
  }),
});
