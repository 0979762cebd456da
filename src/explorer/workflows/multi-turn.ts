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
    const turns = (
      task.messages ?? (task.prompt !== undefined ? [{ role: 'user' as const, content: task.prompt }] : [])
    ).filter((m) => m.role !== 'assistant');
    if (!turns.some((m) => m.role === 'user')) {
      throw new DataError({
        message: `task ${task.id}: multi_turn needs at least one user message`,
        ...(task.source ? { file: task.source.file, row: task.source.row } : {}),
      });
    }
    const groupId = groupIdOf(ctx.exploreStep, task.id);
    const out: Experience[] = [];
    for (let run = 0; run < ctx.repeat; run++) {
      const conversation: Message[] = [];
      const tokens: number[] = [];
      const mask: number[] = [];
      const logprobs: number[] = [];
      let promptLength = -1;
      let last = '';
      let lastTokens: readonly number[] = [];
      let truncated = false;
      let logprobsKnown = true;
      let tokenProblem: string | undefined;
      let turn = 0;
      for (const m of turns) {
        conversation.push(m);
        if (m.role !== 'user') continue;
        const [g] = await model.generate({
          messages: [...conversation],
          n: 1,
          maxTokens: ctx.maxTokens,
          temperature: ctx.temperature,
          seed: (ctx.seed + run * 7919 + turn * 104729) >>> 0,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        if (!g) throw new Error(`model returned no completion for turn ${turn}`);
        // The prompt the model saw extends what we already hold: only the new part is environment text.
        const fresh =
          g.promptTokens.length >= tokens.length ? g.promptTokens.slice(tokens.length) : g.promptTokens;
        if (promptLength < 0) promptLength = fresh.length;
        else
          for (let k = 0; k < fresh.length; k++) {
            logprobs.push(0);
            mask.push(0);
          }
        tokens.push(...fresh);
        tokens.push(...g.tokens);
        mask.push(...g.tokens.map(() => 1));
        // A turn without logprobs makes the whole row's unknown (an invented 0 would claim probability 1).
        if (g.logprobs.length !== g.tokens.length) logprobsKnown = false;
        tokenProblem ??= g.tokenProblem;
        logprobs.push(...(g.logprobs.length === g.tokens.length ? g.logprobs : g.tokens.map(() => 0)));
        conversation.push({ role: 'assistant', content: g.text });
        last = g.text;
        lastTokens = g.tokens;
        truncated ||= g.finishReason === 'length';
        turn++;
      }
      const scored = await ctx.reward({
        response: last,
        task,
        ...(lastTokens.length > 0 ? { responseTokens: lastTokens } : {}),
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
        messages: conversation,
        response: conversation
          .filter((m) => m.role === 'assistant')
          .map((m) => m.content)
          .join('\n'),
        tokens,
        logprobs: logprobsKnown ? logprobs : [],
        actionMask: mask,
        promptLength: Math.max(0, promptLength),
        reward: scored.reward,
        advantage: 0,
        truncated,
        info: {
          ...(scored.info ?? {}),
          turns: turn,
          ...(last.trim() === '' ? { empty: true } : {}),
          ...(tokenProblem ? { tokenProblem } : {}),
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
