import { z } from 'zod';
import { errorMessage, WinnowError } from '../core/errors.ts';
import { JsonObjectSchema, type JsonValue, type Task } from '../core/task.ts';
import { createReward, type RewardFn, rewardDefinitions } from '../explorer/rewards/index.ts';
import { badRequest, parseBody } from './http-error.ts';
import type { Route } from './router.ts';
import { MAX_BATCH } from './schemas.ts';
import type { ServeSession } from './serve-session.ts';

/**
 * A built-in reward by name (`math`) or `{ type, params }`. User modules are not accepted here:
 * a request must not be able to make the server load code.
 */
const RewardSpecSchema = z.union([
  z.string().min(1),
  z.strictObject({ type: z.string().min(1), params: JsonObjectSchema.optional() }),
]);

/** One response to score: against a task of the run (`taskId`), or against a given `answer`. */
const RewardItemSchema = z
  .strictObject({
    response: z.string(),
    taskId: z.string().min(1).optional(),
    answer: z.string().optional(),
    prompt: z.string().optional(),
    responseTokens: z.array(z.number().int()).optional(),
  })
  .refine((v) => v.taskId !== undefined || v.answer !== undefined, {
    message: 'give taskId (a task of the run) or answer (the reference)',
    path: ['taskId'],
  });

/** `POST /v1/rewards`: score responses with one of Winnow's verified rewards. Changes nothing. */
export const RewardsRequestSchema = z.strictObject({
  reward: RewardSpecSchema,
  items: z.array(RewardItemSchema).min(1).max(MAX_BATCH),
});
export type RewardsRequest = z.output<typeof RewardsRequestSchema>;

export const RewardsResponseSchema = z.object({
  reward: z.string(),
  /** One per item, in order; null where the response cannot be judged (NaN: no reference…). */
  rewards: z.array(z.number().nullable()),
  info: z.array(JsonObjectSchema),
});
export type RewardsResponse = z.output<typeof RewardsResponseSchema>;

/** `POST /v1/rewards` (docs/serve.md): reward functions are built once per spec and kept. */
export function rewardRoute(session: ServeSession): Route {
  const built = new Map<string, Promise<RewardFn>>();
  const rewardFor = (spec: RewardsRequest['reward']): Promise<RewardFn> => {
    const type = typeof spec === 'string' ? spec : spec.type;
    if (!rewardDefinitions.has(type))
      throw badRequest(
        'reward',
        `unknown reward '${type}'`,
        `built-in rewards: ${rewardDefinitions.names().join(', ')}`,
      );
    const key = JSON.stringify(spec);
    let fn = built.get(key);
    if (!fn) {
      fn = createReward(spec, { baseDir: process.cwd(), path: 'reward' });
      fn.catch(() => built.delete(key));
      built.set(key, fn);
    }
    return fn;
  };
  return {
    method: 'POST',
    path: '/v1/rewards',
    summary: 'score responses with a built-in reward (math, format, countdown, …) by name',
    handle: async (req) => {
      const body = parseBody(RewardsRequestSchema, req.body);
      const tasks = body.items.map((item, i) => taskOf(session, item, i));
      let fn: RewardFn;
      try {
        fn = await rewardFor(body.reward);
      } catch (err) {
        if (err instanceof WinnowError) throw badRequest('reward', errorMessage(err).split('\n')[0]!);
        throw err;
      }
      const rewards: (number | null)[] = [];
      const info: Record<string, JsonValue>[] = [];
      for (const [i, item] of body.items.entries()) {
        const r = await fn({
          response: item.response,
          task: tasks[i]!,
          ...(item.responseTokens ? { responseTokens: item.responseTokens } : {}),
        });
        rewards.push(Number.isFinite(r.reward) ? r.reward : null);
        info.push(r.info ?? {});
      }
      const name = typeof body.reward === 'string' ? body.reward : body.reward.type;
      return { json: { reward: name, rewards, info } satisfies RewardsResponse };
    },
  };
}

/** The task an item is scored against: the run's, or one made of the given answer and prompt. */
function taskOf(session: ServeSession, item: RewardsRequest['items'][number], i: number): Task {
  if (item.taskId !== undefined) {
    const task = session.task(item.taskId);
    if (!task)
      throw badRequest(
        `items[${i}].taskId`,
        `unknown task id '${item.taskId}'`,
        'task ids come from POST /v1/select',
      );
    return item.answer !== undefined ? { ...task, answer: item.answer } : task;
  }
  return {
    id: `rewards-item-${i}`,
    taskset: 'rewards',
    prompt: item.prompt ?? '',
    answer: item.answer!,
    features: {},
    meta: {},
  };
}
