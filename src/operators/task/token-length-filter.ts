import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Tokenizer } from '../../models/tokenizer.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { formatTaskPath, getTaskValue, parseTaskPath, type TaskPath } from './task-paths.ts';
import { lazyTokenizer, type TokenField, TokenFieldSchema, TokenizerParamSchema } from './task-tokenizer.ts';
import { readText } from './text-fields.ts';

/** Where chat_template stores the rendered prompt, unless told otherwise. */
export const RenderedPathSchema = z
  .string()
  .min(1)
  .refine((s) => {
    const p = parseTaskPath(s, 'meta');
    return typeof p !== 'string' && p.root === 'meta';
  }, 'must name a meta key (meta.<key>)')
  .default('meta.renderedPrompt')
  .describe("With field 'rendered': where chat_template stored the rendered prompt.");

/**
 * The text a token-aware operator measures, or why there is none: the prompt (the joined chat for
 * a multi-turn task), the answer ('' when there is none), or the prompt chat_template rendered.
 */
export function tokenText(task: Task, field: TokenField, rendered: TaskPath): string | { missing: string } {
  if (field === 'prompt') return readText(task, 'prompt');
  if (field === 'answer') return task.answer ?? '';
  const value = getTaskValue(task, rendered);
  if (typeof value !== 'string')
    return { missing: `no rendered prompt at ${formatTaskPath(rendered)} (run chat_template first)` };
  return value;
}

const Limit = z.number().int().nonnegative().optional();

const Params = z
  .strictObject({
    tokenizer: TokenizerParamSchema,
    field: TokenFieldSchema.default('prompt').describe(
      "Which text is measured: the prompt (a chat's joined turns), the answer, or chat_template's rendered prompt.",
    ),
    renderedField: RenderedPathSchema,
    minTokens: Limit,
    maxTokens: Limit,
  })
  .refine((p) => p.minTokens === undefined || p.maxTokens === undefined || p.minTokens <= p.maxTokens, {
    message: 'minTokens must not exceed maxTokens',
    path: ['minTokens'],
  });

/** Why a text of `n` tokens fails the limits, or null when it passes. */
function outOfRange(
  what: string,
  n: number,
  min: number | undefined,
  max: number | undefined,
): string | null {
  if (min !== undefined && n < min) return `${what} has ${n} tokens < min ${min}`;
  if (max !== undefined && n > max) return `${what} has ${n} tokens > max ${max}`;
  return null;
}

export const tokenLengthFilterOp = defineOperator<Task, typeof Params>({
  name: 'token_length_filter',
  kind: 'filter',
  description:
    "Keep tasks whose prompt, answer or rendered prompt has between minTokens and maxTokens of the model's tokens.",
  params: Params,
  create(p) {
    const tokenizer = lazyTokenizer(p.tokenizer);
    const rendered = parseTaskPath(p.renderedField, 'meta') as TaskPath;
    const what = p.field === 'rendered' ? 'rendered prompt' : p.field;
    return {
      name: 'token_length_filter',
      kind: 'filter',
      async process(batch, ctx) {
        const tok: Tokenizer = await tokenizer(ctx);
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let kept = 0;
        let removed = 0;
        for (const task of batch) {
          const text = tokenText(task, p.field, rendered);
          if (typeof text !== 'string') {
            dropped.push({ row: task, reason: text.missing });
            continue;
          }
          const n = tok.count(text);
          const reason = outOfRange(what, n, p.minTokens, p.maxTokens);
          if (reason === null) {
            rows.push(task);
            kept += n;
          } else {
            dropped.push({ row: task, reason });
            removed += n;
          }
        }
        return { rows, dropped, metrics: { tokensKept: kept, tokensDropped: removed } };
      },
    };
  },
});
