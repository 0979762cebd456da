import type { Experience } from '../../core/experience.ts';
import { experienceIdOf, groupIdOf } from '../../core/rollout-ids.ts';
import { type Task, taskText } from '../../core/task.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../../models/rollout-model.ts';
import type { Workflow, WorkflowContext } from '../workflow.ts';

/**
 * One prompt, `repeat` sampled answers, each scored by the reward function against the task's
 * reference answer. Tokens are prompt + response; logprobs and the action mask cover the response
 * tokens (the one layout of src/core/token-alignment.ts).
 */
export const singleTurnWorkflow: Workflow = {
  name: 'single_turn',

  prepare(task: Task, ctx: WorkflowContext): GenerateRequest {
    return {
      ...(task.messages ? { messages: task.messages } : { prompt: task.prompt ?? taskText(task) }),
      n: ctx.repeat,
      maxTokens: ctx.maxTokens,
      temperature: ctx.temperature,
      seed: ctx.seed,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    };
  },

  async finish(task: Task, generations: Generation[], ctx: WorkflowContext): Promise<Experience[]> {
    const groupId = groupIdOf(ctx.exploreStep, task.id);
    // Every rollout's reward is asked for at once (the math reward judges on worker threads);
    // results are taken back by index, so the group's order never depends on which finished first.
    const scores = await Promise.all(
      generations.map((g) =>
        ctx.reward({
          response: g.text,
          task,
          ...(g.tokens.length > 0 ? { responseTokens: g.tokens } : {}),
        }),
      ),
    );
    const out: Experience[] = [];
    for (let i = 0; i < generations.length; i++) {
      const g = generations[i]!;
      const scored = scores[i]!;
      out.push({
        id: experienceIdOf(groupId, i),
        taskId: task.id,
        taskset: task.taskset,
        groupId,
        runIndex: i,
        stepIndex: 0,
        modelVersion: ctx.modelVersion,
        exploreStep: ctx.exploreStep,
        ...(task.messages ? { messages: task.messages } : { prompt: task.prompt ?? taskText(task) }),
        response: g.text,
        tokens: [...g.promptTokens, ...g.tokens],
        logprobs: g.logprobs,
        actionMask: g.tokens.map(() => 1),
        promptLength: g.promptTokens.length,
        reward: scored.reward,
        advantage: 0,
        truncated: g.finishReason === 'length',
        info: {
          ...(scored.info ?? {}),
          ...(g.text.trim() === '' ? { empty: true } : {}),
          ...(g.tokenProblem ? { tokenProblem: g.tokenProblem } : {}),
        },
        useCount: 0,
        priority: 0,
        createdAt: Date.now(),
        expert: false,
      });
    }
    return out;
  },

  async run(task: Task, model: RolloutModel, ctx: WorkflowContext): Promise<Experience[]> {
    const gens = await model.generate(singleTurnWorkflow.prepare!(task, ctx));
    return singleTurnWorkflow.finish!(task, gens, ctx);
  },
};
