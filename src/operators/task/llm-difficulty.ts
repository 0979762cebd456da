import { z } from 'zod';
import { hashSeed } from '../../core/rng.ts';
import { type Task, taskText } from '../../core/task.ts';
import { LlmCallParamsSchema } from '../../models/llm-chat.ts';
import { judgeMath } from '../../verify/math-answer.ts';
import { defineOperator } from '../operator.ts';
import { createChat, failureReason, fillTemplate, processWithLlm, type RowOutcome } from './llm-support.ts';

const DEFAULT_INSTRUCTION = `Solve the following problem. Reason step by step, then give the final answer after "####".

{prompt}`;

/**
 * How a sample is scored against the task's answer. The same comparisons as the `math` and
 * `exact_match` reward functions (math's is shared from verify/math-answer.ts; exact_match is a
 * trimmed string equality), so a pass here is a pass in training.
 */
const RewardSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('math'),
    tolerance: z.number().nonnegative().default(1e-6),
    percent: z.enum(['strip', 'fraction']).default('strip'),
  }),
  z.strictObject({
    type: z.literal('exact_match'),
    caseSensitive: z.boolean().default(true),
  }),
]);

const Params = LlmCallParamsSchema.extend({
  /** Placeholder: {prompt}. */
  instruction: z.string().min(1).default(DEFAULT_INSTRUCTION),
  /** Samples per task; the pass rate is passes / k. */
  k: z.number().int().min(1).max(64).default(8),
  temperature: z.number().nonnegative().default(1),
  maxTokens: z.number().int().positive().default(1024),
  seed: z.number().int().default(0),
  reward: RewardSchema.default({ type: 'math', tolerance: 1e-6, percent: 'strip' }),
  /** The pass rate goes to `features.<feature>`; the `difficulty` operator turns it into 1 − pass rate. */
  feature: z.string().min(1).default('pass_rate'),
}).strict();

type Reward = z.output<typeof RewardSchema>;

function passes(reward: Reward, response: string, answer: string): boolean {
  if (reward.type === 'math') return judgeMath(response, answer, reward).match;
  const norm = (s: string) => (reward.caseSensitive ? s.trim() : s.trim().toLowerCase());
  return norm(response) === norm(answer);
}

export const llmDifficultyOp = defineOperator<Task, typeof Params>({
  name: 'llm_difficulty',
  kind: 'map',
  needsModel: true,
  description:
    'Sample a model k times per task and write the pass rate against the reference answer to features.<feature> (a difficulty prior); failed calls quarantine the task.',
  params: Params,
  create(p) {
    const chat = createChat(p, 'llm_difficulty');
    return {
      name: 'llm_difficulty',
      kind: 'map',
      process(batch, ctx) {
        return processWithLlm(chat, p, batch, ctx, async (task): Promise<RowOutcome> => {
          const answer = task.answer;
          if (answer === undefined || answer.trim() === '')
            return { reason: 'llm_difficulty: task has no reference answer to score samples against' };
          const text = taskText(task);
          if (text.trim() === '') return { reason: 'llm_difficulty: empty prompt, nothing to sample' };
          let samples: string[];
          try {
            samples = await chat.ask({
              prompt: fillTemplate(p.instruction, { prompt: text }),
              n: p.k,
              temperature: p.temperature,
              maxTokens: p.maxTokens,
              seed: hashSeed(p.seed, task.id),
            });
          } catch (err) {
            return { reason: failureReason('llm_difficulty', err) };
          }
          if (samples.length !== p.k)
            return {
              reason: `llm_difficulty: expected ${p.k} samples, the model returned ${samples.length}`,
            };
          const passed = samples.filter((s) => passes(p.reward, s, answer)).length;
          return {
            rows: [{ ...task, features: { ...task.features, [p.feature]: passed / p.k } }],
            metrics: { samples: p.k, samples_passed: passed },
          };
        });
      },
    };
  },
});
