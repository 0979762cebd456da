import { z } from 'zod';
import { JsonObjectSchema, MessageSchema } from './task.ts';
import { alignTokenArrays } from './token-alignment.ts';

/** The int32 range the table stores counters and token ids in (a wider value would wrap silently). */
export const INT32_MAX = 2 ** 31 - 1;
const count = () => z.number().int().nonnegative().max(INT32_MAX);
const tokenId = () =>
  z
    .number()
    .int()
    .min(-(2 ** 31))
    .max(INT32_MAX);

/**
 * The range of epoch milliseconds a JS Date holds (±100,000,000 days). A stored time outside it
 * cannot be read back as a number (Arrow refuses int64 past 2^53), so no boundary accepts one.
 */
export const MAX_TIME_MS = 8.64e15;

/** True for epoch milliseconds no JS Date can hold (NaN is not judged here: callers decide). */
export const outsideTimeRange = (ms: number): boolean => Math.abs(ms) > MAX_TIME_MS;

/**
 * One rollout of one task. `groupId` names the GRPO group (one task in one explorer step);
 * `runIndex` is the rollout's index within its group.
 */
/**
 * The fields of an experience, for schemas that extend or pick from them (HTTP bodies). Parse rows
 * with `ExperienceSchema`, which also checks the layout of the per-token arrays.
 */
export const ExperienceFieldsSchema = z.object({
  id: z.string().min(1),
  taskId: z.string().min(1),
  taskset: z.string().min(1),
  groupId: z.string().min(1),
  runIndex: count(),
  stepIndex: count().default(0),
  modelVersion: count(),
  exploreStep: count(),
  prompt: z.string().optional(),
  messages: z.array(MessageSchema).optional(),
  response: z.string(),
  tokens: z.array(tokenId()).default([]),
  logprobs: z.array(z.number()).default([]),
  /** Per response token: 1 where the policy produced it (trained on), 0 for environment tokens of later turns. */
  actionMask: z.array(z.number().int().min(0).max(1)).default([]),
  /** Length of the prompt part of `tokens` (the response starts there). */
  promptLength: count().default(0),
  /** NaN is allowed here on purpose: invalid-reward filters must see it. */
  reward: z.number().or(z.nan()),
  advantage: z.number().default(0),
  advantages: z.array(z.number()).optional(),
  truncated: z.boolean().default(false),
  info: JsonObjectSchema.default({}),
  useCount: count().default(0),
  priority: z.number().default(0),
  /** Epoch milliseconds (0: not set), within the range a JS Date can hold. */
  createdAt: z.number().min(-MAX_TIME_MS).max(MAX_TIME_MS).default(0),
  /** Set by mix sampling: 1 when the row came from an expert/SFT table. */
  expert: z.boolean().default(false),
});

/**
 * An experience as every boundary accepts it: `logprobs`, `actionMask` and `advantages` cover the
 * response tokens (`tokens.slice(promptLength)`); an all-tokens array is converted, anything else
 * is refused with the array named (src/core/token-alignment.ts).
 */
export const ExperienceSchema = ExperienceFieldsSchema.transform((e, ctx) => {
  const aligned = alignTokenArrays(e);
  if (typeof aligned !== 'string') return aligned;
  ctx.addIssue({ code: 'custom', message: aligned, path: [aligned.split(' ')[0]!] });
  return z.NEVER;
});
export type Experience = z.output<typeof ExperienceFieldsSchema>;
export type ExperienceInput = z.input<typeof ExperienceFieldsSchema>;
