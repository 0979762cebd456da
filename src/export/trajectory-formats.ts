import * as arrow from 'apache-arrow';
import { readTrajectory, type Trajectory, type TrajectoryMessage } from '../agents/trajectory.ts';
import type { Experience } from '../core/experience.ts';
import { field, float64, rowsToTable, utf8 } from './arrow-build.ts';
import type { ExportDrop, ExportFormat, ExportResult, ExportSource } from './export-format.ts';

/**
 * Agent trajectories (src/agents) for trainers: whole conversations (`trajectory-messages`, the
 * messages layout of trl-messages plus tool calls) or one row per model turn (`trajectory-steps`,
 * prompt/completion as trl-prompt with that step's reward and return).
 */

const toolCallType = () =>
  new arrow.Struct([
    field('id', utf8()),
    field('type', utf8()),
    field('function', new arrow.Struct([field('name', utf8()), field('arguments', utf8())])),
  ]);

/** A chat turn with OpenAI tool fields: struct<role, content, tool_calls?, tool_call_id?>. */
const toolChatTurnType = () =>
  new arrow.Struct([
    field('role', utf8()),
    field('content', utf8()),
    field('tool_calls', new arrow.List(new arrow.Field('element', toolCallType(), false)), true),
    field('tool_call_id', utf8(), true),
  ]);
const toolChatType = () => new arrow.List(new arrow.Field('element', toolChatTurnType(), false));

function turnRow(m: TrajectoryMessage) {
  return {
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls ?? null,
    tool_call_id: m.tool_call_id ?? null,
  };
}

function trajectories(
  format: string,
  source: ExportSource,
): { kept: { e: Experience; t: Trajectory }[]; dropped: ExportDrop[] } {
  if (source.kind !== 'experiences') throw new TypeError(`${format} reads experience rows`);
  const kept: { e: Experience; t: Trajectory }[] = [];
  const dropped: ExportDrop[] = [];
  for (const e of source.experiences) {
    const t = readTrajectory(e);
    if (typeof t === 'string')
      dropped.push({ format, id: e.id, taskId: e.taskId, reason: 'no_trajectory', detail: t });
    else kept.push({ e, t });
  }
  return { kept, dropped };
}

const episodeFields = () => [
  field('task_id', utf8()),
  field('taskset', utf8()),
  field('group_id', utf8()),
  field('model_version', new arrow.Int32()),
];
const episodeOf = (e: Experience) => ({
  task_id: e.taskId,
  taskset: e.taskset,
  group_id: e.groupId,
  model_version: e.modelVersion,
});

export const trajectoryMessagesFormat: ExportFormat = {
  name: 'trajectory-messages',
  summary: 'agent episodes as whole conversations (messages with tool calls), step rewards and call counts',
  reads: 'experiences',
  build(source): ExportResult {
    const { kept, dropped } = trajectories('trajectory-messages', source);
    const fields = [
      field('id', utf8()),
      field('messages', toolChatType()),
      field('reward', float64()),
      field('step_rewards', new arrow.List(new arrow.Field('element', float64(), false))),
      field('tool_calls', new arrow.Int32()),
      field('invalid_calls', new arrow.Int32()),
      field('stop_reason', utf8()),
      ...episodeFields(),
    ];
    const rows = kept.map(({ e, t }) => ({
      id: e.id,
      messages: t.messages.map(turnRow),
      reward: e.reward,
      step_rewards: t.turns.map((x) => x.reward),
      tool_calls: t.counts.toolCalls,
      invalid_calls: t.counts.invalidCalls,
      stop_reason: t.stopReason,
      ...episodeOf(e),
    }));
    return {
      table: rowsToTable(fields, rows, (i) => `experience '${kept[i]!.e.id}'`),
      rows,
      dropped,
      notes: [],
    };
  },
};

export const trajectoryStepsFormat: ExportFormat = {
  name: 'trajectory-steps',
  summary: 'agent episodes one row per model turn: the conversation so far, the turn, its reward and return',
  reads: 'experiences',
  build(source): ExportResult {
    const { kept, dropped } = trajectories('trajectory-steps', source);
    const fields = [
      field('id', utf8()),
      field('episode_id', utf8()),
      field('step', new arrow.Int32()),
      field('prompt', toolChatType()),
      field('completion', toolChatType()),
      field('step_reward', float64()),
      field('return', float64()),
      field('done', new arrow.Bool()),
      ...episodeFields(),
    ];
    const rows: Record<string, unknown>[] = [];
    const labels: string[] = [];
    for (const { e, t } of kept) {
      const rewards = t.turns.map((x) => x.reward);
      t.turns.forEach((turn, i) => {
        const [from] = turn.messageSpan;
        labels.push(`experience '${e.id}' step ${i}`);
        rows.push({
          id: `${e.id}/${i}`,
          episode_id: e.id,
          step: i,
          prompt: t.messages.slice(0, from).map(turnRow),
          completion: [turnRow(t.messages[from]!)],
          step_reward: turn.reward,
          return: rewards.slice(i).reduce((s, r) => s + r, 0),
          done: turn.done,
          ...episodeOf(e),
        });
      });
    }
    return { table: rowsToTable(fields, rows, (i) => labels[i]!), rows, dropped, notes: [] };
  },
};
