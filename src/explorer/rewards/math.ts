import { z } from 'zod';
import { verifyMathBounded } from '../../verify/bounded-verify.ts';
import { sharedJudgePool } from '../../verify/judge-pool.ts';
import { defineReward } from './definition.ts';
import type { RewardResult } from './reward-fn.ts';

/**
 * MATH-grade answer equivalence (src/verify): 1 when the response's final answer is the
 * reference's — numbers, expressions, intervals, sets, tuples, matrices, equations, inequalities,
 * choices — else 0 with the reason (`not_equal`, `unparseable`, `timeout`, `too_large`…). GSM8K
 * `#### n` references work as before. A task without a reference scores NaN (invalid_reward drops it).
 * Judgements run on the judgement pool (src/verify/judge-pool.ts): one that outlives `timeLimitMs`
 * is stopped there (reason `timeout`) and the explorer's thread never waits on it.
 */
export const mathReward = defineReward({
  name: 'math',
  description:
    'MATH-grade final-answer equivalence: \\boxed{}, ####, "final answer", $…$; numbers, expressions, intervals, sets, tuples, matrices, relations',
  params: z
    .object({
      tolerance: z.number().nonnegative().default(1e-6),
      percent: z.enum(['strip', 'fraction']).default('strip'),
      timeLimitMs: z.number().int().positive().default(200),
      maxInputChars: z.number().int().positive().default(100_000),
      workers: z
        .number()
        .int()
        .min(0)
        .max(64)
        .optional()
        .describe(
          'judgement worker threads (default 2, or WINNOW_JUDGE_WORKERS); 0 judges on the calling thread, without the hard time bound',
        ),
    })
    .strict(),
  create: (p) => {
    const pool = p.workers === 0 ? null : sharedJudgePool(p.workers);
    return async (ctx): Promise<RewardResult> => {
      const reference = ctx.task.answer;
      if (reference === undefined || reference.trim() === '')
        return {
          reward: Number.NaN,
          info: {
            extracted: null,
            extracted_by: null,
            expected: null,
            reason: 'no_reference',
            detail: 'task has no reference answer',
          },
        };
      const v = await verifyMathBounded(ctx.response, reference, {
        tolerance: p.tolerance,
        percent: p.percent,
        limits: { timeLimitMs: p.timeLimitMs, maxInputChars: p.maxInputChars },
        pool,
      });
      return {
        reward: v.correct ? 1 : 0,
        info: {
          extracted: v.extracted,
          extracted_by: v.extractedBy,
          expected: v.expected,
          reason: v.reason,
          detail: v.detail,
          form: v.form,
        },
      };
    };
  },
});
