import { z } from 'zod';
import { evaluateExpression, show } from '../verify/countdown-expression.ts';
import { defineEnvironment, type StepResultInput } from './environment.ts';

const paramsSchema = z.strictObject({
  tool: z.boolean().default(true).describe('Whether the calculator exists (false: the no-tool baseline).'),
  callText: z
    .string()
    .min(1)
    .default('=')
    .describe('An answer starting with this calls the calculator (the tiny policy has no letters).'),
  toolCost: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Subtracted from a right answer the calculator gave: answering in the head pays more.'),
});

/**
 * One-step arithmetic with an optional calculator, for models whose alphabet cannot write a JSON
 * tool call (the tiny policy): an answer starting with `callText` is a call to the calculator on
 * the task's expression, whose exact result becomes the answer (reward 1 − toolCost); any other
 * answer is the model's own (reward 1 when right). So the policy gains by calling only where it
 * cannot do the sum itself. With `tool: false` the call text is just a wrong answer.
 */
export const calculatorChoiceEnvironment = defineEnvironment({
  name: 'calculator_choice',
  description: 'answer arithmetic in the head, or call a calculator (callText) at a cost',
  params: paramsSchema,
  create: (p) => {
    let expression = '';
    let expected = '';
    return {
      reset(task) {
        const prompt = task.prompt ?? '';
        expression = prompt.replace(/=\s*$/, '');
        expected = String(task.answer ?? '').trim();
        return prompt;
      },
      step(action): StepResultInput {
        const text = action.text.trim();
        if (p.tool && text.startsWith(p.callText)) {
          const r = evaluateExpression(expression);
          const ok = r.ok;
          const value = r.ok ? show(r.value) : r.error;
          const correct = ok && value === expected;
          return {
            toolResults: [
              {
                callId: 'calc_0',
                name: 'calculator',
                ok,
                content: ok ? value : `error (tool_error): ${value}`,
                ...(ok ? {} : { failure: 'tool_error' as const }),
              },
            ],
            reward: correct ? 1 - p.toolCost : 0,
            done: true,
            info: { tool: true, correct, answer: ok ? value : '' },
          };
        }
        const correct = text === expected;
        return { reward: correct ? 1 : 0, done: true, info: { tool: false, correct, answer: text } };
      },
    };
  },
});
