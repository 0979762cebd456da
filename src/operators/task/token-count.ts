import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { parseTaskPath, type TaskPath } from './task-paths.ts';
import { lazyTokenizer, type TokenField, TokenFieldSchema, TokenizerParamSchema } from './task-tokenizer.ts';
import { RenderedPathSchema, tokenText } from './token-length-filter.ts';

/** Default feature per field: the rendered prompt's count is `promptTokens`, as chat_template writes it. */
const DEFAULT_FEATURE: Record<TokenField, string> = {
  prompt: 'promptTextTokens',
  answer: 'answerTokens',
  rendered: 'promptTokens',
};

const Params = z.strictObject({
  tokenizer: TokenizerParamSchema,
  field: TokenFieldSchema.default('prompt').describe(
    "Which text is counted: the prompt (a chat's joined turns), the answer, or chat_template's rendered prompt.",
  ),
  renderedField: RenderedPathSchema,
  feature: z
    .string()
    .min(1)
    .optional()
    .describe('Feature to write (default: promptTextTokens, answerTokens or promptTokens by field).'),
});

export const tokenCountOp = defineOperator<Task, typeof Params>({
  name: 'token_count',
  kind: 'map',
  description:
    "Write the number of the model's tokens in the prompt, answer or rendered prompt as a feature.",
  params: Params,
  create(p) {
    const tokenizer = lazyTokenizer(p.tokenizer);
    const rendered = parseTaskPath(p.renderedField, 'meta') as TaskPath;
    const feature = p.feature ?? DEFAULT_FEATURE[p.field];
    return {
      name: 'token_count',
      kind: 'map',
      async process(batch, ctx) {
        const tok = await tokenizer(ctx);
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let total = 0;
        for (const task of batch) {
          const text = tokenText(task, p.field, rendered);
          if (typeof text !== 'string') {
            dropped.push({ row: task, reason: text.missing });
            continue;
          }
          const n = tok.count(text);
          total += n;
          rows.push({ ...task, features: { ...task.features, [feature]: n } });
        }
        return { rows, dropped, metrics: { [feature]: total } };
      },
    };
  },
});
