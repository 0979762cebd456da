import { z } from 'zod';
import { JsonObjectSchema, MessageSchema } from './task.ts';

/**
 * One rollout of one task. `groupId` names the GRPO group (one task in one explorer step);
 * `runIndex` is the rollout's index within its group.
 */
export const ExperienceSchema = z.object({
  id: z.string().min(1),
  taskId: z.string().min(1),
  taskset: z.string().min(1),
  groupId: z.string().min(1),
  runIndex: z.number().int().nonnegative(),
  stepIndex: z.number().int().nonnegative().default(0),
  modelVersion: z.number().int().nonnegative(),
  exploreStep: z.number().int().nonnegative(),
  prompt: z.string().optional(),
  messages: z.array(MessageSchema).optional(),
  response: z.string(),
  tokens: z.array(z.number().int()).default([]),
  logprobs: z.array(z.number()).default([]),
  /** 1 where the token was produced by the policy (trained on), 0 for prompt/environment tokens. */
  actionMask: z.array(z.number().int().min(0).max(1)).default([]),
  /** Length of the prompt part of `tokens` (the response starts there). */
  promptLength: z.number().int().nonnegative().default(0),
  /** NaN is allowed here on purpose: invalid-reward filters must see it. */
  reward: z.number().or(z.nan()),
  advantage: z.number().default(0),
  advantages: z.array(z.number()).optional(),
  truncated: z.boolean().default(false),
  info: JsonObjectSchema.default({}),
  useCount: z.number().int().nonnegative().default(0),
  priority: z.number().default(0),
  createdAt: z.number().default(0),
  /** Set by mix sampling: 1 when the row came from an expert/SFT table. */
  expert: z.boolean().default(false),
});
export type Experience = z.infer<typeof ExperienceSchema>;
export type ExperienceInput = z.input<typeof ExperienceSchema>;
