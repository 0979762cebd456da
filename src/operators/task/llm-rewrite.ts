import { z } from 'zod';
import { taskContentId } from '../../core/ids.ts';
import { hashSeed } from '../../core/rng.ts';
import { type Task, taskText } from '../../core/task.ts';
import { LlmCallParamsSchema } from '../../models/llm-chat.ts';
import { defineOperator } from '../operator.ts';
import { createChat, failureReason, fillTemplate, processWithLlm, type RowOutcome } from './llm-support.ts';

const DEFAULT_INSTRUCTION = `Rewrite the following problem in different words. Keep every number, quantity and condition, so that its answer stays exactly {answer}. Do not solve it and do not state the answer.

Problem:
{prompt}

Reply with the rewritten problem only.`;

const Params = LlmCallParamsSchema.extend({
  /** Placeholders: {prompt}, {answer}. */
  instruction: z.string().min(1).default(DEFAULT_INSTRUCTION),
  /** Rewrites to ask for per task (one request with `n`). */
  variants: z.number().int().min(1).max(16).default(1),
  temperature: z.number().nonnegative().default(0.7),
  maxTokens: z.number().int().positive().default(1024),
  /** Mixed with each task id, so a task's rewrites do not depend on batch order. */
  seed: z.number().int().default(0),
  /** Do not rewrite tasks that are themselves augmented (meta.augmented === true). */
  skipAugmented: z.boolean().default(true),
  /** Only tasks with a reference answer are rewritten (the variant keeps it); others pass through. */
  requireAnswer: z.boolean().default(true),
}).strict();

export const llmRewriteOp = defineOperator<Task, typeof Params>({
  name: 'llm_rewrite',
  kind: 'augment',
  needsModel: true,
  description:
    'Emit LLM paraphrases of each task as variants (meta.parentId) that keep the verified answer; failed calls quarantine the task.',
  params: Params,
  create(p) {
    const chat = createChat(p, 'llm_rewrite');
    return {
      name: 'llm_rewrite',
      kind: 'augment',
      process(batch, ctx) {
        return processWithLlm(chat, p, batch, ctx, async (task): Promise<RowOutcome> => {
          // Chat tasks keep their turns: rewriting one turn would break the conversation.
          const eligible =
            task.prompt !== undefined &&
            task.messages === undefined &&
            !(p.skipAugmented && task.meta.augmented === true) &&
            !(p.requireAnswer && (task.answer === undefined || task.answer.trim() === ''));
          if (!eligible) return { rows: [task], metrics: { tasks_not_rewritable: 1 } };
          const text = taskText(task);
          if (text.trim() === '') return { reason: 'llm_rewrite: empty prompt, nothing to rewrite' };
          const prompt = fillTemplate(p.instruction, { prompt: text, answer: task.answer ?? '' });
          let replies: string[];
          try {
            replies = await chat.ask({
              prompt,
              n: p.variants,
              temperature: p.temperature,
              maxTokens: p.maxTokens,
              seed: hashSeed(p.seed, task.id),
            });
          } catch (err) {
            return { reason: failureReason('llm_rewrite', err) };
          }
          const rows: Task[] = [task];
          const seen = new Set([text.trim()]);
          let skipped = 0;
          for (const reply of replies) {
            const rewritten = reply.trim();
            // Empty or repeated rewrites add nothing; they are counted, the parent is kept either way.
            if (rewritten === '' || seen.has(rewritten)) {
              skipped++;
              continue;
            }
            seen.add(rewritten);
            rows.push({
              ...task,
              id: taskContentId({ prompt: rewritten, answer: task.answer }),
              prompt: rewritten,
              meta: {
                ...task.meta,
                augmented: true,
                parentId: task.id,
                rewrittenBy: chat.model.config.model,
              },
            });
          }
          return { rows, metrics: { variants_emitted: rows.length - 1, variants_skipped: skipped } };
        });
      },
    };
  },
});
