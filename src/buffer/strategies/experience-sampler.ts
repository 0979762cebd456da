import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Registry } from '../../core/registry.ts';
import { ExperienceBuffer } from '../experience-buffer.ts';
import { checkReplayRatio, type ReplayRatioLimiter, type ReplayRatioState } from '../rate-limiter.ts';
import { strategyRegistry } from './registry.ts';
import type { SampleStrategy, StrategyBatch, StrategyDefinition, StrategySampleOptions } from './strategy.ts';

export const SamplingConfigSchema = z.strictObject({
  type: z.string().default('default').describe('Sample strategy: default, staleness, mix.'),
  params: z.record(z.string(), z.unknown()).default({}).describe("The strategy's parameters."),
});
export type SamplingConfig = z.output<typeof SamplingConfigSchema>;
export type SamplingConfigInput = z.input<typeof SamplingConfigSchema>;

export interface SamplerState {
  replayRatio?: ReplayRatioState;
}

/**
 * What the trainer side of a run holds: a sample strategy over one or more buffers. The main
 * buffer's rate limiter (`buffer.rateLimiter`) gates every batch; its counts are this object's
 * checkpoint state. `ack`/`recover` reach every buffer the strategy samples from.
 */
export class ExperienceSampler {
  readonly strategy: SampleStrategy;
  readonly batchSize: number;

  private constructor(strategy: SampleStrategy, batchSize: number) {
    this.strategy = strategy;
    this.batchSize = batchSize;
  }

  /**
   * Build from a `sampling:` config. `batchSize` is the trainer's batch (used to prove the main
   * buffer's rate limiter cannot deadlock). Config errors name their path under `path` (default `sampling`).
   */
  static async create(
    config: SamplingConfigInput,
    ctx: {
      buffer: ExperienceBuffer;
      dbDir?: string;
      batchSize: number;
      bufferPath?: string;
      /** Where strategy names are looked up (default: the built-ins); a run passes its own. */
      strategies?: Registry<StrategyDefinition>;
    },
    where: { path?: string; file?: string } = {},
  ): Promise<ExperienceSampler> {
    const path = where.path ?? 'sampling';
    const file = where.file ? { file: where.file } : {};
    if (config && typeof config === 'object' && 'replayRatio' in config)
      throw new ConfigError({
        path: `${path}.replayRatio`,
        ...file,
        message: 'moved: the rate limiter belongs to the buffer',
        hint: 'use buffer: { rateLimiter: { samplesPerInsert, minSizeToSample, errorBuffer, insertBatch } }',
      });
    const cfg = parseConfig(SamplingConfigSchema, config, { path, ...file });
    const def = (ctx.strategies ?? strategyRegistry()).get(cfg.type, `${path}.type`, where.file);
    const params = parseConfig(def.params, cfg.params, { path: `${path}.params`, ...file });
    return ExperienceSampler.createResolved({ def, params }, ctx, where);
  }

  /** `create` for a strategy already resolved, its params parsed (a run's door did it): nothing is parsed again. */
  static async createResolved(
    resolved: { def: StrategyDefinition; params: unknown },
    ctx: { buffer: ExperienceBuffer; dbDir?: string; batchSize: number; bufferPath?: string },
    where: { path?: string; file?: string } = {},
  ): Promise<ExperienceSampler> {
    const path = where.path ?? 'sampling';
    const file = where.file ? { file: where.file } : {};
    const strategy = await resolved.def.create(resolved.params, {
      buffer: ctx.buffer,
      openBuffer: (c, p) =>
        ExperienceBuffer.open(
          ctx.dbDir,
          { seed: ctx.buffer.config.seed, runId: ctx.buffer.config.runId, ...c },
          {
            path: p.replace(/^sampling/, path),
            ...file,
          },
          ctx.buffer.options,
        ),
    });
    const limiter = ctx.buffer.rateLimiter;
    if (limiter)
      checkReplayRatio(
        limiter.config,
        {
          batchSize: ctx.batchSize,
          maxUses: ctx.buffer.sampler.limits.maxUses,
          capacity: ctx.buffer.config.capacity,
        },
        `${ctx.bufferPath ?? 'buffer'}.rateLimiter`,
      );
    return new ExperienceSampler(strategy, ctx.batchSize);
  }

  get buffers() {
    return this.strategy.buffers;
  }

  /** The main buffer's rate limiter, if it has one. */
  get limiter(): ReplayRatioLimiter | null {
    return this.strategy.buffers[0]!.rateLimiter;
  }

  /** Whether a batch of `n` may be drawn now (always true without a rate limiter). */
  canSample(n = this.batchSize): boolean {
    return this.limiter ? this.limiter.canSample(n, this.strategy.buffers[0]!.size) : true;
  }

  /** Whether the explorer may insert `k` more experiences now. */
  canInsert(k: number): boolean {
    return this.limiter ? this.limiter.canInsert(k, this.strategy.buffers[0]!.size) : true;
  }

  async sample(n: number, opts: StrategySampleOptions): Promise<StrategyBatch> {
    const limiter = this.limiter;
    if (limiter && !this.canSample(n))
      return {
        step: opts.step,
        experiences: [],
        weights: [],
        expertMask: [],
        skipped: [],
        requested: n,
        blocked: limiter.whySampleBlocked(n, this.strategy.buffers[0]!.size),
      };
    return this.strategy.sample(n, opts);
  }

  async ack(step: number): Promise<void> {
    for (const b of this.strategy.buffers) await b.ack(step);
  }

  async recover(trainedThroughStep: number | null): Promise<void> {
    for (const b of this.strategy.buffers) await b.recover(trainedThroughStep);
  }

  state(): SamplerState {
    const limiter = this.limiter;
    return limiter ? { replayRatio: limiter.state() } : {};
  }

  load(state: SamplerState): void {
    if (state.replayRatio) this.limiter?.load(state.replayRatio);
  }

  /** Close the buffers this sampler opened itself (not the main one). */
  async close(): Promise<void> {
    for (const b of this.strategy.buffers.slice(1)) await b.close();
  }
}
