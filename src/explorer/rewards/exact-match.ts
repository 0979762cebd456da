import { z } from 'zod';
import { defineReward } from './definition.ts';

/** 1 when the response equals the reference answer (after trimming; optionally case-insensitive). */
export const exactMatchReward = defineReward({
  name: 'exact_match',
  description: 'response equals the reference answer (trimmed, optionally case-insensitive)',
  params: z
    .object({
      trim: z.boolean().default(true),
      caseSensitive: z.boolean().default(true),
      normalizeWhitespace: z.boolean().default(false),
    })
    .strict(),
  create: (p) => {
    const norm = (s: string): string => {
      let t = p.trim ? s.trim() : s;
      if (p.normalizeWhitespace) t = t.replace(/\s+/g, ' ');
      return p.caseSensitive ? t : t.toLowerCase();
    };
    return (ctx) => {
      const reference = ctx.task.answer;
      if (reference === undefined)
        return { reward: Number.NaN, info: { expected: null, reason: 'task has no reference answer' } };
      const match = norm(ctx.response) === norm(reference);
      return { reward: match ? 1 : 0, info: { expected: reference, reason: match ? 'equal' : 'not equal' } };
    };
  },
});
