import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { asBatch, defineStrategy, type StrategyBatch } from './strategy.ts';

export const MixParamsSchema = z.strictObject({
  expertShare: z
    .number()
    .min(0)
    .max(1)
    .describe('Share of every batch drawn from the expert buffer: round(n × share) rows.'),
  expert: z
    .record(z.string(), z.unknown())
    .default({ table: 'expert', sampler: { type: 'uniform' } })
    .describe('The expert/SFT buffer: a buffer config (table, sampler, …); its sampler defaults to uniform.'),
  maxStaleness: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Staleness control for the main buffer’s share (the expert share is never stale).'),
});

/**
 * Mix: every batch of n holds round(n × expertShare) experiences from an expert/SFT buffer (flagged
 * `expert: true` and in `expertMask`) and the rest from the main buffer, main rows first. Shares are
 * exact: if a buffer has fewer eligible rows than its share, the batch is short rather than
 * topped up from the other buffer, so the expert share never drifts.
 */
export const mixStrategy = defineStrategy({
  name: 'mix',
  description: 'A fixed share of every batch from an expert/SFT table, flagged with an expert mask.',
  params: MixParamsSchema,
  create: async (p, ctx) => {
    const expert = await ctx.openBuffer(
      { sampler: { type: 'uniform' }, ...p.expert } as Parameters<typeof ctx.openBuffer>[0],
      'sampling.params.expert',
    );
    const main = ctx.buffer;
    if (expert.config.table === main.config.table)
      throw new ConfigError({
        path: 'sampling.params.expert.table',
        message: `the expert table must differ from the main table '${main.config.table}'`,
      });
    return {
      name: 'mix',
      buffers: [main, expert],
      sample: async (n, o): Promise<StrategyBatch> => {
        const nExpert = Math.round(n * p.expertShare);
        const common = {
          step: o.step,
          ...(o.modelVersion !== undefined ? { modelVersion: o.modelVersion } : {}),
          ...(o.now !== undefined ? { now: o.now } : {}),
        };
        const a = await main.sample(n - nExpert, {
          ...common,
          ...(p.maxStaleness !== undefined ? { maxStaleness: p.maxStaleness } : {}),
        });
        // The main table's rate limiter holds the whole batch back, the expert share too.
        if (a.blocked !== undefined) return { ...asBatch(a), requested: n };
        const b = await expert.sample(nExpert, common);
        return {
          step: o.step,
          experiences: [...a.experiences, ...b.experiences.map((e) => ({ ...e, expert: true }))],
          weights: [...a.weights, ...b.weights],
          expertMask: [...a.experiences.map(() => false), ...b.experiences.map(() => true)],
          skipped: [...a.skipped, ...b.skipped],
          requested: n,
        };
      },
    };
  },
});
