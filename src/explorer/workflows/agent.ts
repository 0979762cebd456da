import { z } from 'zod';
import { environmentSlotSchema, resolveEnvironment } from '../../agents/environment-registry.ts';
import { runEpisode } from '../../agents/episode.ts';
import { TRAJECTORY_INFO_KEY } from '../../agents/trajectory.ts';
import type { Experience } from '../../core/experience.ts';
import { definePlugin } from '../../core/plugin.ts';
import { experienceIdOf, groupIdOf } from '../../core/rollout-ids.ts';
import type { JsonObject, Message, Task } from '../../core/task.ts';
import type { RolloutModel } from '../../models/rollout-model.ts';
import type { Workflow, WorkflowContext } from '../workflow.ts';

const paramsSchema = z.strictObject({
  environment: environmentSlotSchema()
    .prefault('tools')
    .describe('The environment: tools, guess_number, or { module: ./env.ts, export: Name, params }.'),
  maxTurns: z.number().int().positive().default(8).describe('Model turns per episode at most.'),
  maxTrajectoryTokens: z
    .number()
    .int()
    .positive()
    .default(4096)
    .describe('Tokens of the whole trajectory (prompt, model turns, observations) at most.'),
  episodeTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(120_000)
    .describe('Wall-clock budget of one episode; when it runs out the episode ends as it stands.'),
  toolCallFormat: z
    .enum(['native', 'text'])
    .default('native')
    .describe('native: OpenAI `tools`/`tool_calls`; text: <tool_call>{…}</tool_call> blocks in the text.'),
  systemPrompt: z.string().optional().describe('A system message opening every episode.'),
  finalReward: z
    .enum(['environment', 'reward'])
    .default('environment')
    .describe(
      "environment: the episode's reward is the sum of the step rewards; reward: explorer.reward also scores the final answer, added to the last step",
    ),
});

/** Role and content of a message: the `messages` column keeps the plain chat (tool calls live in the trajectory). */
function plain(m: { role: Message['role']; content: string }): Message {
  return { role: m.role, content: m.content };
}

/**
 * The agent workflow: each of a task's `repeat` rollouts is one episode in a fresh environment
 * (seeded from the task's seed and the rollout index), stored as one experience whose
 * `info.trajectory` holds every turn (src/agents/trajectory.ts). An episode is recorded whole or
 * not at all: the explorer writes a step's experiences together, so a crash redoes the episode.
 */
export const agentWorkflow = definePlugin({
  name: 'agent',
  description: 'episodes in an environment (tools, games, user modules): one experience per trajectory',
  params: paramsSchema,
  create: async (p, ctx: { baseDir: string; path: string }): Promise<Workflow> => {
    const env = await resolveEnvironment(p.environment, {
      baseDir: ctx.baseDir,
      path: `${ctx.path}.params.environment`,
    });
    return {
      name: 'agent',
      async run(task: Task, model: RolloutModel, wctx: WorkflowContext): Promise<Experience[]> {
        const groupId = groupIdOf(wctx.exploreStep, task.id);
        const out: Experience[] = [];
        for (let run = 0; run < wctx.repeat; run++) {
          const instance = await env.def.create(env.params, { baseDir: ctx.baseDir });
          try {
            const ep = await runEpisode(instance, task, model, {
              environment: env.label,
              maxTurns: p.maxTurns,
              maxTrajectoryTokens: p.maxTrajectoryTokens,
              episodeTimeoutMs: p.episodeTimeoutMs,
              toolCallFormat: p.toolCallFormat,
              systemPrompt: p.systemPrompt,
              maxTokens: wctx.maxTokens,
              temperature: wctx.temperature,
              seed: (wctx.seed + run * 7919) >>> 0,
              signal: wctx.signal,
            });
            const t = ep.trajectory;
            let scoredInfo: JsonObject = {};
            const last = t.turns.at(-1);
            if (p.finalReward === 'reward' && last && t.stopReason === 'done') {
              const scored = await wctx.reward({
                response: t.finalAnswer,
                task,
                ...(ep.lastTokens.length > 0 ? { responseTokens: ep.lastTokens } : {}),
              });
              last.reward += scored.reward;
              scoredInfo = scored.info ?? {};
            }
            const reward = t.turns.reduce((s, turn) => s + turn.reward, 0);
            out.push({
              id: experienceIdOf(groupId, run),
              taskId: task.id,
              taskset: task.taskset,
              groupId,
              runIndex: run,
              stepIndex: 0,
              modelVersion: wctx.modelVersion,
              exploreStep: wctx.exploreStep,
              messages: t.messages.map(plain),
              response: t.finalAnswer,
              tokens: ep.tokens,
              logprobs: ep.logprobs,
              actionMask: ep.actionMask,
              promptLength: ep.promptLength,
              reward,
              advantage: 0,
              truncated: ep.truncated,
              info: {
                ...scoredInfo,
                turns: t.turns.length,
                tool_calls: t.counts.toolCalls,
                invalid_calls: t.counts.invalidCalls,
                stop_reason: t.stopReason,
                ...(ep.tokenProblem ? { tokenProblem: ep.tokenProblem } : {}),
                [TRAJECTORY_INFO_KEY]: t as unknown as JsonObject,
              },
              useCount: 0,
              priority: 0,
              createdAt: Date.now(),
              expert: false,
            });
          } finally {
            await instance.close?.();
          }
        }
        return out;
      },
    };
  },
});
