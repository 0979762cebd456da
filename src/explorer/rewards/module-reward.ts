import { z } from 'zod';
import { defineReward, type RewardDefinition } from './definition.ts';
import { checkRewardResult, type RewardFn } from './reward-fn.ts';

/**
 * A user module may export a bare reward function `(ctx) => { reward, info? } | number` (sync or
 * async) instead of a definition: it becomes a reward without params whose results are checked on
 * every call.
 */
export function adaptRewardExport(exported: unknown, source = 'user module'): RewardDefinition | null {
  if (typeof exported !== 'function') return null;
  const fn = exported as (c: unknown) => unknown;
  return defineReward({
    name: fn.name || 'module',
    description: `reward function from ${source}`,
    params: z.strictObject({}),
    create: (): RewardFn => async (rc) => checkRewardResult(await fn(rc), source, rc.task.id),
  }) as RewardDefinition;
}
