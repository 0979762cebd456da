import { z } from 'zod';
import { JsonValueSchema } from '../core/task.ts';
import { BUILTIN_TOOL_NAMES, builtinTool } from './builtin-tools.ts';
import { type AgentAction, defineEnvironment, type StepResultInput } from './environment.ts';
import { runToolCall } from './tool-call-runner.ts';

const paramsSchema = z.strictObject({
  tools: z
    .array(z.enum(BUILTIN_TOOL_NAMES))
    .min(1)
    .default(['calculator', 'evaluate', 'lookup'])
    .describe('Which built-in tools the model may call.'),
  table: z
    .record(z.string(), JsonValueSchema)
    .default({})
    .describe("Entries of the lookup tool's key-value store (task.meta.kv adds per-task entries)."),
  toolTimeoutMs: z.number().int().positive().default(2000).describe('Time one tool call may take.'),
  invalidCallReward: z
    .number()
    .default(0)
    .describe('Reward of a step whose calls include an invalid one (e.g. -0.1 to discourage them).'),
  answerReward: z.number().default(1).describe("Reward of a final answer equal to the task's answer."),
});

/** A number-aware answer comparison: "42", "42.0" and " 42 " agree; other text compares trimmed. */
function sameAnswer(given: string, expected: string): boolean {
  const a = given.trim();
  const b = expected.trim();
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  return a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y) && x === y;
}

/**
 * The tool environment: the task's prompt is the first observation; a turn with tool calls gets
 * one `tool` message per call (results, or the reason a call failed) and the episode goes on; a
 * turn without tool calls is the final answer, scored against the task's answer, and ends it.
 */
export const toolEnvironment = defineEnvironment({
  name: 'tools',
  description: 'built-in typed tools (calculator, evaluate, lookup); a turn without tool calls is the answer',
  params: paramsSchema,
  create: (p) => {
    const tools = p.tools.map((name) => builtinTool(name, p.table));
    let task: Parameters<typeof runToolCall>[2]['task'] | undefined;
    return {
      tools,
      reset(t) {
        task = t;
        return t.prompt ?? t.messages?.find((m) => m.role === 'user')?.content ?? '';
      },
      async step(action: AgentAction): Promise<StepResultInput> {
        if (!task) throw new Error('step before reset');
        if (action.toolCalls.length === 0) {
          const expected = task.answer === undefined ? undefined : String(task.answer);
          const correct = expected !== undefined && sameAnswer(action.text, expected);
          return { reward: correct ? p.answerReward : 0, done: true, info: { correct } };
        }
        const results = [];
        for (const call of action.toolCalls)
          results.push(await runToolCall(call, tools, { task, timeoutMs: p.toolTimeoutMs }));
        const invalid = results.some((r) => !r.ok);
        return { toolResults: results, reward: invalid ? p.invalidCallReward : 0, done: false };
      },
    };
  },
});
