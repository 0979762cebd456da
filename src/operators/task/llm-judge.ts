import { z } from 'zod';
import { type Task, taskText } from '../../core/task.ts';
import { LlmCallParamsSchema } from '../../models/llm-chat.ts';
import { defineOperator } from '../operator.ts';
import { parseJudgeReply } from './llm-judge-parse.ts';
import { createChat, failureReason, fillTemplate, processWithLlm, type RowOutcome } from './llm-support.ts';

const DEFAULT_RUBRIC =
  'Rate the task for training a model to reason: is it self-contained, unambiguous, solvable, and is the reference answer correct? 0 = unusable, 10 = excellent.';

const DEFAULT_INSTRUCTION = `You are grading a training task.
Rubric: {rubric}
Scores range from {min} to {max}.

Task:
{prompt}

Reference answer:
{answer}

Reply with JSON only: {"score": <number>, "reason": "<one sentence>"}`;

const Params = LlmCallParamsSchema.extend({
  rubric: z.string().min(1).default(DEFAULT_RUBRIC),
  /** Placeholders: {rubric}, {prompt}, {answer}, {min}, {max}. */
  instruction: z.string().min(1).default(DEFAULT_INSTRUCTION),
  /** The score is written to `features.<feature>`, where filters and selectors read it. */
  feature: z.string().min(1).default('llm_quality'),
  minScale: z.number().default(0),
  maxScale: z.number().default(10),
  /** Rows scoring below this are dropped (with the score in the reason); unset keeps every scored row. */
  minScore: z.number().optional(),
  /** Greedy by default so a judge's verdict is reproducible (and cacheable). */
  temperature: z.number().nonnegative().default(0),
  maxTokens: z.number().int().positive().default(256),
  seed: z.number().int().default(0),
}).strict();

export const llmJudgeOp = defineOperator<Task, typeof Params>({
  name: 'llm_judge',
  kind: 'filter',
  needsModel: true,
  description:
    'Score each task with an LLM against a rubric into features.<feature>; unparseable verdicts and failed calls are quarantined with the reason.',
  params: Params,
  create(p) {
    const chat = createChat(p, 'llm_judge');
    return {
      name: 'llm_judge',
      kind: 'filter',
      process(batch, ctx) {
        return processWithLlm(chat, p, batch, ctx, async (task): Promise<RowOutcome> => {
          const text = taskText(task);
          if (text.trim() === '') return { reason: 'llm_judge: empty prompt, nothing to judge' };
          const prompt = fillTemplate(p.instruction, {
            rubric: p.rubric,
            prompt: text,
            answer: task.answer ?? '(none)',
            min: String(p.minScale),
            max: String(p.maxScale),
          });
          let reply: string;
          try {
            [reply = ''] = await chat.ask({
              prompt,
              temperature: p.temperature,
              maxTokens: p.maxTokens,
              seed: p.seed,
            });
          } catch (err) {
            return { reason: failureReason('llm_judge', err) };
          }
          const verdict = parseJudgeReply(reply);
          if ('error' in verdict) return { reason: `llm_judge: malformed verdict: ${verdict.error}` };
          if (verdict.score < p.minScale || verdict.score > p.maxScale)
            return {
              reason: `llm_judge: malformed verdict: score ${verdict.score} outside [${p.minScale}, ${p.maxScale}]`,
            };
          if (p.minScore !== undefined && verdict.score < p.minScore)
            return { reason: `llm_judge: score ${verdict.score} below minScore ${p.minScore}` };
          return {
            rows: [{ ...task, features: { ...task.features, [p.feature]: verdict.score } }],
            metrics: { judged: 1 },
          };
        });
      },
    };
  },
});
