import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { lazyTokenizer, TokenizerParamSchema } from './task-tokenizer.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { charClassCounts, fmtRatio } from './text-stats.ts';
import { wordTokens } from './text-units.ts';

/** Letters, digits and combining marks per token; 0 when there are no tokens. */
export function lettersPerToken(text: string, tokens: number): number {
  return tokens === 0 ? 0 : charClassCounts(text).alnum / tokens;
}

/** Letters only (Unicode L*, Python's isalpha) per token, as Data-Juicer's alphanumeric_filter with tokenization counts; 0 without tokens. */
export function alphaPerToken(text: string, tokens: number): number {
  if (tokens === 0) return 0;
  let letters = 0;
  for (const _ of text.matchAll(/\p{L}/gu)) letters++;
  return letters / tokens;
}

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    /** A model tokenizer; without one, tokens are text-units.ts words (CJK-aware). */
    tokenizer: TokenizerParamSchema.optional(),
    minRatio: z.number().nonnegative().default(1.5),
    maxRatio: z.number().positive().optional(),
    /** Count letters only, not digits and marks (Data-Juicer's alphanumeric_filter with tokenization: true). */
    lettersOnly: z.boolean().default(false),
  })
  .refine((p) => p.maxRatio === undefined || p.minRatio <= p.maxRatio, {
    message: 'minRatio must not exceed maxRatio',
    path: ['minRatio'],
  });

export const lettersPerTokenFilterOp = defineOperator<Task, typeof Params>({
  name: 'letters_per_token_filter',
  kind: 'filter',
  description:
    'Keep tasks whose letters-and-digits per token (model tokens, or words) is within [minRatio, maxRatio].',
  params: Params,
  create(p) {
    const tokenizer = p.tokenizer === undefined ? null : lazyTokenizer(p.tokenizer);
    const unit = tokenizer === null ? 'word' : 'token';
    return {
      name: 'letters_per_token_filter',
      kind: 'filter',
      async process(batch, ctx) {
        const tok = tokenizer === null ? null : await tokenizer(ctx);
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        for (const task of batch) {
          const text = readText(task, p.field);
          const r = (p.lettersOnly ? alphaPerToken : lettersPerToken)(
            text,
            tok === null ? wordTokens(text).length : tok.count(text),
          );
          if (r < p.minRatio)
            dropped.push({
              row: task,
              reason: `letters per ${unit} ${fmtRatio(r)} < minRatio ${p.minRatio}`,
            });
          else if (p.maxRatio !== undefined && r > p.maxRatio)
            dropped.push({
              row: task,
              reason: `letters per ${unit} ${fmtRatio(r)} > maxRatio ${p.maxRatio}`,
            });
          else rows.push(task);
        }
        return { rows, dropped };
      },
    };
  },
});
