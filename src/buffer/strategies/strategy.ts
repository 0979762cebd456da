import type { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { ExperienceBuffer } from '../experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../experience-config.ts';
import type { SkippedExperience } from '../experience-results.ts';

/**
 * The sample-strategy contract: how the trainer's batch for one step is drawn from one or more
 * experience buffers. A strategy never stores anything itself; durability is the buffers' (a
 * strategy's `ack`/`recover` forward to every buffer it samples from).
 */

export interface StrategySampleOptions {
  /** Train step (lease key). */
  step: number;
  /** The trainer's current model version (staleness); default `step`. */
  modelVersion?: number;
  /** Wall clock in ms (second cooldowns); default `Date.now()`. */
  now?: number;
}

export interface StrategyBatch {
  step: number;
  experiences: Experience[];
  /** Importance weight per experience. */
  weights: number[];
  /** true where the experience came from the expert/SFT buffer (mix strategy). */
  expertMask: boolean[];
  skipped: SkippedExperience[];
  requested: number;
  /** Set when no batch was drawn on purpose (the buffer's rate limiter: `replay_ratio: …`). */
  blocked?: string;
}

export interface SampleStrategy {
  readonly name: string;
  /** Buffers this strategy draws from (the first is the main one). */
  readonly buffers: readonly ExperienceBuffer[];
  sample(n: number, opts: StrategySampleOptions): Promise<StrategyBatch>;
}

export interface StrategyContext {
  /** The main experience buffer. */
  buffer: ExperienceBuffer;
  /** Opens another buffer in the same database (mix: the expert table). */
  openBuffer(config: ExperienceBufferConfigInput, path: string): Promise<ExperienceBuffer>;
}

export interface StrategyDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P, ctx: StrategyContext): Promise<SampleStrategy>;
}

export function defineStrategy<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: StrategyContext): Promise<SampleStrategy>;
}): StrategyDefinition<z.output<S>> {
  return def as StrategyDefinition<z.output<S>>;
}

/** A buffer's sample result as a strategy batch (no expert rows). */
export function asBatch(r: {
  step: number;
  experiences: Experience[];
  weights: number[];
  skipped: SkippedExperience[];
  requested: number;
  blocked?: string;
}): StrategyBatch {
  return {
    step: r.step,
    experiences: r.experiences,
    weights: r.weights,
    expertMask: r.experiences.map(() => false),
    skipped: r.skipped,
    requested: r.requested,
    ...(r.blocked !== undefined ? { blocked: r.blocked } : {}),
  };
}
