import { z } from 'zod';
import type { Experience } from '../core/experience.ts';
import { JsonObjectSchema } from '../core/task.ts';

/**
 * The trajectory data model. One episode is one experience: `tokens`/`logprobs`/`actionMask` hold
 * the whole conversation (model tokens masked in, tool and environment tokens masked out), and
 * `info.trajectory` holds every turn — the exact message sequence (assistant `tool_calls`, `tool`
 * messages with their `tool_call_id`), each step's reward and where the step's model tokens lie.
 * It lives in `info` (stored as JSON by every buffer) so the experience schema stays as it is.
 */
export const TRAJECTORY_INFO_KEY = 'trajectory';

export const ToolCallMessageSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/** A chat message in the OpenAI format, tool calls included (what the model saw and wrote). */
export const TrajectoryMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  tool_calls: z.array(ToolCallMessageSchema).optional(),
  tool_call_id: z.string().optional(),
});
export type TrajectoryMessage = z.infer<typeof TrajectoryMessageSchema>;

export const STOP_REASONS = ['done', 'max_turns', 'max_tokens', 'time_budget'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** One model turn and what the environment answered. */
export const TurnSchema = z.object({
  index: z.number().int().nonnegative(),
  /** This step's reward (from the environment; plus the configured reward on the final answer). */
  reward: z.number(),
  done: z.boolean(),
  /** [start, end): this turn's model tokens, as offsets into the response tokens (`tokens.slice(promptLength)`). */
  tokenSpan: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
  /** [start, end): this turn's messages (the assistant message and the observations after it) in `messages`. */
  messageSpan: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
  toolCalls: z.number().int().nonnegative(),
  invalidCalls: z.number().int().nonnegative(),
  truncated: z.boolean(),
  info: JsonObjectSchema,
});
export type Turn = z.infer<typeof TurnSchema>;

export const CallCountsSchema = z.object({
  toolCalls: z.number().int().nonnegative(),
  validCalls: z.number().int().nonnegative(),
  invalidCalls: z.number().int().nonnegative(),
  malformed: z.number().int().nonnegative(),
  unknownTool: z.number().int().nonnegative(),
  invalidArguments: z.number().int().nonnegative(),
  toolError: z.number().int().nonnegative(),
  timeout: z.number().int().nonnegative(),
});
export type CallCounts = z.infer<typeof CallCountsSchema>;

export const TrajectorySchema = z.object({
  environment: z.string(),
  messages: z.array(TrajectoryMessageSchema),
  turns: z.array(TurnSchema),
  counts: CallCountsSchema,
  stopReason: z.enum(STOP_REASONS),
  finalAnswer: z.string(),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

export function emptyCounts(): CallCounts {
  return {
    toolCalls: 0,
    validCalls: 0,
    invalidCalls: 0,
    malformed: 0,
    unknownTool: 0,
    invalidArguments: 0,
    toolError: 0,
    timeout: 0,
  };
}

/** The trajectory of an experience, or a string saying why it has none (for drop reasons). */
export function readTrajectory(e: Pick<Experience, 'info' | 'id'>): Trajectory | string {
  const raw = e.info[TRAJECTORY_INFO_KEY];
  if (raw === undefined)
    return `experience ${e.id} has no info.${TRAJECTORY_INFO_KEY} (not an agent episode)`;
  const parsed = TrajectorySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0]!;
  return `experience ${e.id}: info.${TRAJECTORY_INFO_KEY}.${i.path.join('.')}: ${i.message}`;
}

/** Per-step rewards of a trajectory, in turn order. */
export function stepRewards(t: Trajectory): number[] {
  return t.turns.map((turn) => turn.reward);
}
