import type { z } from 'zod';
import type { RewardFn } from './reward-fn.ts';

/** Where a reward config came from, so file paths in it resolve next to the config file. */
export interface RewardCreateContext {
  /** Directory that relative paths (a `module` reward's file) are resolved against. */
  baseDir: string;
  /** Config path of the reward entry, for error messages (e.g. `explorer.reward`). */
  path: string;
  /** The config file, for error messages. */
  file?: string;
}

/** A named reward function with a parameter schema, as the reward registry holds it. */
export interface RewardDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P, ctx: RewardCreateContext): RewardFn | Promise<RewardFn>;
}

/** Helper so a definition's params type flows into `create`. */
export function defineReward<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: RewardCreateContext): RewardFn | Promise<RewardFn>;
}): RewardDefinition<z.output<S>> {
  return def as RewardDefinition<z.output<S>>;
}
