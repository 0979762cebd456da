import { DataError } from '../../core/errors.ts';
import type { Experience } from '../../core/experience.ts';
import { experienceIdOf, groupIdOf } from '../../core/rollout-ids.ts';
import type { Message, Task } from '../../core/task.ts';
import type { RolloutModel } from '../../models/rollout-model.ts';
import type { Workflow, WorkflowContext } from '../workflow.ts';

/**
 * A conversation: the task's `messages` give the system and user turns (assistant turns in the
 * data are replaced by the model's). The model answers each user turn in order; one experience
 * holds the whole conversation with turns concatenated. `actionMask` and `logprobs` cover
 * `tokens.slice(promptLength)` (the one layout of src/core/token-alignment.ts): later user turns
 * are masked out (0, logprob 0), the model's tokens masked in (1). The reward judges the final answer.
 */
export const multiTurnWorkflow: Workflow = {
  name: 'multi_turn',

  async run(task: Task, model: RolloutModel, ctx: WorkflowContext): Promise<Experience[]> {
    const turns = userTurns(task);
    const groupId = groupIdOf(ctx.exploreStep, task.id);
    const out: Experience[] = [];
    for (let run = 0; run < ctx.repeat; run++) {
      const c = await converse(turns, model, ctx, run);
      const scored = await ctx.reward({
        response: c.last,
        task,
        ...(c.lastTokens.length > 0 ? { responseTokens: c.lastTokens } : {}),
      });
      out.push({
        id: experienceIdOf(groupId, run),
        taskId: task.id,
        taskset: task.taskset,
        groupId,
        runIndex: run,
        stepIndex: 0,
        modelVersion: ctx.modelVersion,
        exploreStep: ctx.exploreStep,
        messages: c.conversation,
        response: c.conversation
          .filter((m) => m.role === 'assistant')
          .map((m) => m.content)
          .join('\n'),
        tokens: c.tokens,
        logprobs: c.logprobsKnown ? c.logprobs : [],
        actionMask: c.mask,
        promptLength: Math.max(0, c.promptLength),
        reward: scored.reward,
        advantage: 0,
        truncated: c.truncated,
        info: {
          ...(scored.info ?? {}),
          turns: c.turn,
          ...(c.last.trim() === '' ? { empty: true } : {}),
          ...(c.tokenProblem ? { tokenProblem: c.tokenProblem } : {}),
        },
        useCount: 0,
        priority: 0,
        createdAt: Date.now(),
        expert: false,
      });
    }
    return out;
  },
};

/** The task's system and user turns (assistant turns in the data are the model's to write). */
function userTurns(task: Task): Message[] {
  const turns = (
    task.messages ?? (task.prompt !== undefined ? [{ role: 'user' as const, content: task.prompt }] : [])
  ).filter((m) => m.role !== 'assistant');
  if (!turns.some((m) => m.role === 'user')) {
    throw new DataError({
      message: `task ${task.id}: multi_turn needs at least one user message`,
      ...(task.source ? { file: task.source.file, row: task.source.row } : {}),
    });
  }
  return turns;
}

/** One conversation as it accumulates: its messages and the token-level arrays of the whole of it. */
interface Conversation {
  conversation: Message[];
  tokens: number[];
  mask: number[];
  logprobs: number[];
  promptLength: number;
  last: string;
  lastTokens: readonly number[];
  truncated: boolean;
  logprobsKnown: boolean;
  tokenProblem: string | undefined;
  turn: number;
}

/** Rollout `run`: the model answers each user turn in order. */
async function converse(
  turns: readonly Message[],
  model: RolloutModel,
  ctx: WorkflowContext,
  run: number,
): Promise<Conversation> {
  const c: Conversation = {
    conversation: [],
    tokens: [],
    mask: [],
    logprobs: [],
    promptLength: -1,
    last: '',
    lastTokens: [],
    truncated: false,
    logprobsKnown: true,
    tokenProblem: undefined,
    turn: 0,
  };
  for (const m of turns) {
    c.conversation.push(m);
    if (m.role !== 'user') continue;
    const [g] = await model.generate({
      messages: [...c.conversation],
      n: 1,
      maxTokens: ctx.maxTokens,
      temperature: ctx.temperature,
      seed: (ctx.seed + run * 7919 + c.turn * 104729) >>> 0,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (!g) throw new Error(`model returned no completion for turn ${c.turn}`);
    // The prompt the model saw extends what we already hold: only the new part is environment text.
    const fresh =
      g.promptTokens.length >= c.tokens.length ? g.promptTokens.slice(c.tokens.length) : g.promptTokens;
    if (c.promptLength < 0) c.promptLength = fresh.length;
    else
      for (let k = 0; k < fresh.length; k++) {
        c.logprobs.push(0);
        c.mask.push(0);
      }
    c.tokens.push(...fresh);
    c.tokens.push(...g.tokens);
    c.mask.push(...g.tokens.map(() => 1));
    // A turn without logprobs makes the whole row's unknown (an invented 0 would claim probability 1).
    if (g.logprobs.length !== g.tokens.length) c.logprobsKnown = false;
    c.tokenProblem ??= g.tokenProblem;
    c.logprobs.push(...(g.logprobs.length === g.tokens.length ? g.logprobs : g.tokens.map(() => 0)));
    c.conversation.push({ role: 'assistant', content: g.text });
    c.last = g.text;
    c.lastTokens = g.tokens;
    c.truncated ||= g.finishReason === 'length';
    c.turn++;
  }
  return c;
}
