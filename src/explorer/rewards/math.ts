import { z } from 'zod';
import { defineReward } from './definition.ts';
import { judgeMath } from './math-answer.ts';
import type { RewardResult } from './reward-fn.ts';

/**
 * Math answer equivalence: 1 when the response's final answer equals the task's reference
 * numerically (within `tolerance`), or as canonical text when the reference is not a number.
 * A task without a reference answer scores NaN (it cannot be judged; invalid_reward drops it).
 */
export const mathReward = defineReward({
  name: 'math',
  description:
    'final-answer equivalence for math: \\boxed{}, ####, "the answer is", last number; numeric compare',
  params: z
    .object({
      tolerance: z.number().nonnegative().default(1e-6),
      percent: z.enum(['strip', 'fraction']).default('strip'),
    })
    .strict(),
  create:
    (p) =>
    (ctx): RewardResult => {
      const reference = ctx.task.answer;
      if (reference === undefined || reference.trim() === '')
        return {
          reward: Number.NaN,
          info: {
            extracted: null,
            extracted_by: null,
            expected: null,
            reason: 'task has no reference answer',
          },
        };
      const j = judgeMath(ctx.response, reference, p);
      return {
        reward: j.match ? 1 : 0,
        info: { extracted: j.extracted, extracted_by: j.extractedBy, expected: j.expected, reason: j.reason },
      };
    },
});
