import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { ExperienceBuffer } from '../experience-buffer.ts';
import {
  checkReplayRatio,
  ReplayRatioLimiter,
  ReplayRatioSchema,
  type ReplayRatioState,
} from './rate-limiter.ts';
import { sampleStrategies } from './registry.ts';
import type { SampleStrategy, StrategyBatch, StrategySampleOptions } from './strategy.ts';

export const SamplingConfigSchema = z.strictObject({
  type: z.string().default('default').describe('Sample strategy: default, staleness, mix.'),
  params: z.record(z.string(), z.unknown()).default({}).describe("The strategy's parameters."),
  replayRatio: ReplayRatioSchema.optional().describe(
    'Reverb-style samples-per-insert limiter (any strategy).',
  ),
});
export type SamplingConfig = z.output<typeof SamplingConfigSchema>;
export type SamplingConfigInput = z.input<typeof SamplingConfigSchema>;

export interface SamplerState {
  replayRatio?: ReplayRatioState;
}

/**
 * What the trainer side of a run holds: a sample strategy over one or more buffers, optionally
 * behind a replay-ratio limiter. `ack`/`recover` reach every buffer the strategy samples from.
 */
export class ExperienceSampler {
  readonly strategy: SampleStrategy;
  readonly limiter: ReplayRatioLimiter | null;
  readonly batchSize: number;

  private constructor(strategy: SampleStrategy, limiter: ReplayRatioLimiter | null, batchSize: number) {
    this.strategy = strategy;
    this.limiter = limiter;
    this.batchSize = batchSize;
  }

  /**
   * Build from a `sampling:` config. `batchSize` is the trainer's batch (used to prove a replay-ratio
   * setting cannot deadlock). Config errors name their path under `path` (default `sampling`).
   */
  static async create(
    config: SamplingConfigInput,
    ctx: { buffer: ExperienceBuffer; dbDir?: string; batchSize: number },
    where: { path?: string; file?: string } = {},
  ): Promise<ExperienceSampler> {
    const path = where.path ?? 'sampling';
    const file = where.file ? { file: where.file } : {};
    const cfg = parseConfig(SamplingConfigSchema, config, { path, ...file });
    const def = sampleStrategies.get(cfg.type, `${path}.type`, where.file);
    const params = parseConfig(def.params, cfg.params, { path: `${path}.params`, ...file });
    const strategy = await def.create(params, {
      buffer: ctx.buffer,
      openBuffer: (c, p) =>
        ExperienceBuffer.open(
          ctx.dbDir,
          { seed: ctx.buffer.config.seed, runId: ctx.buffer.config.runId, ...c },
          {
            path: p.replace(/^sampling/, path),
            ...file,
          },
        ),
    });
    let limiter: ReplayRatioLimiter | null = null;
    if (cfg.replayRatio) {
      checkReplayRatio(
        cfg.replayRatio,
        {
          batchSize: ctx.batchSize,
          maxUses: ctx.buffer.discipline.limits.maxUses,
          capacity: ctx.buffer.config.capacity,
        },
        `${path}.replayRatio`,
      );
      limiter = new ReplayRatioLimiter(cfg.replayRatio);
    }
    return new ExperienceSampler(strategy, limiter, ctx.batchSize);
  }

  get buffers() {
    return this.strategy.buffers;
  }

  /** Whether a batch of `n` may be drawn now (always true without a replay-ratio limiter). */
  canSample(n = this.batchSize): boolean {
    return this.limiter ? this.limiter.canSample(n, this.strategy.buffers[0]!.size) : true;
  }

  /** Whether the explorer may insert `k` more experiences now. */
  canInsert(k: number): boolean {
    return this.limiter ? this.limiter.canInsert(k, this.strategy.buffers[0]!.size) : true;
  }

  /** Tell the limiter about experiences written to the main buffer (call after each `buffer.write`). */
  recordInsert(k: number): void {
    this.limiter?.onInsert(k);
  }

  async sample(n: number, opts: StrategySampleOptions): Promise<StrategyBatch> {
    if (this.limiter && !this.canSample(n))
      return {
        step: opts.step,
        experiences: [],
        weights: [],
        expertMask: [],
        skipped: [],
        requested: n,
        blocked: this.limiter.whySampleBlocked(n, this.strategy.buffers[0]!.size),
      };
    const batch = await this.strategy.sample(n, opts);
    this.limiter?.onSample(batch.experiences.length);
    return batch;
  }

  async ack(step: number): Promise<void> {
    for (const b of this.strategy.buffers) await b.ack(step);
  }

  async recover(trainedThroughStep: number | null): Promise<void> {
    for (const b of this.strategy.buffers) await b.recover(trainedThroughStep);
  }

  state(): SamplerState {
    return this.limiter ? { replayRatio: this.limiter.state() } : {};
  }

  load(state: SamplerState): void {
    if (state.replayRatio) this.limiter?.load(state.replayRatio);
  }

  /** Close the buffers this sampler opened itself (not the main one). */
  async close(): Promise<void> {
    for (const b of this.strategy.buffers.slice(1)) await b.close();
  }
}
