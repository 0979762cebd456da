import { z } from 'zod';
import { hashSeed, Rng } from '../core/rng.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../models/rollout-model.ts';
import type { RewardFn } from './rewards/reward-fn.ts';

/** Fault injection, for testing that runs survive bad model servers and bad rewards. All rates in [0, 1]. */
export const FaultConfigSchema = z.strictObject({
  errorRate: z.number().min(0).max(1).default(0),
  timeoutRate: z.number().min(0).max(1).default(0),
  emptyRate: z.number().min(0).max(1).default(0),
  nanRewardRate: z.number().min(0).max(1).default(0),
  seed: z.number().int().default(0),
});
export type FaultConfig = z.output<typeof FaultConfigSchema>;

export interface FaultCounts {
  errors: number;
  timeouts: number;
  empty: number;
  nanRewards: number;
}

/**
 * Wraps a model so a seeded share of calls throw, hang until aborted, or return empty text.
 * Draws are keyed by the request's seed and how often that seed was tried, so they do not depend
 * on scheduling, and a retry can succeed.
 */
export class FaultyModel implements RolloutModel {
  readonly name: string;
  readonly counts: FaultCounts = { errors: 0, timeouts: 0, empty: 0, nanRewards: 0 };
  private readonly inner: RolloutModel;
  private readonly config: FaultConfig;
  private readonly tries = new Map<number, number>();

  constructor(inner: RolloutModel, config: FaultConfig) {
    this.inner = inner;
    this.config = config;
    this.name = `faulty(${inner.name})`;
  }

  async generate(request: GenerateRequest): Promise<Generation[]> {
    const key = request.seed ?? 0;
    const attempt = (this.tries.get(key) ?? 0) + 1;
    this.tries.set(key, attempt);
    const u = new Rng(hashSeed(this.config.seed, key, attempt)).float();
    const { errorRate, timeoutRate, emptyRate } = this.config;
    if (u < errorRate) {
      this.counts.errors++;
      throw new Error('injected fault: rollout error (HTTP 500 from model server)');
    }
    if (u < errorRate + timeoutRate) {
      this.counts.timeouts++;
      await new Promise<void>((_, reject) => {
        const onAbort = () => reject(request.signal?.reason ?? new Error('aborted'));
        if (request.signal?.aborted) onAbort();
        request.signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    const gens = await this.inner.generate(request);
    if (u < errorRate + timeoutRate + emptyRate) {
      this.counts.empty++;
      return gens.map((g) => ({ ...g, text: '', tokens: [], logprobs: [], finishReason: 'stop' as const }));
    }
    return gens;
  }
}

/** Wraps a reward so a seeded share of results are NaN (what a broken verifier returns). */
export function faultyReward(inner: RewardFn, config: FaultConfig, counts: FaultCounts): RewardFn {
  let calls = 0;
  return async (ctx) => {
    const u = new Rng(hashSeed(config.seed, 'reward', calls++)).float();
    const r = await inner(ctx);
    if (u < config.nanRewardRate) {
      counts.nanRewards++;
      return { reward: Number.NaN, info: { ...(r.info ?? {}), fault: 'injected NaN reward' } };
    }
    return r;
  };
}
