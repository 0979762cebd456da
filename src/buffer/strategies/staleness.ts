import { z } from 'zod';
import { asBatch, defineStrategy } from './strategy.ts';

export const StalenessParamsSchema = z.strictObject({
  maxStaleness: z
    .number()
    .int()
    .nonnegative()
    .describe('Skip experiences whose model version is below (current version − maxStaleness).'),
});

/**
 * Staleness control: before choosing, every experience whose model version is older than
 * `modelVersion − maxStaleness` is skipped for good (it can only get staler) and recorded in the
 * rejected table as `sample:staleness`. Every returned experience has version ≥ modelVersion − maxStaleness.
 */
export const stalenessStrategy = defineStrategy({
  name: 'staleness',
  description: 'Skip (and record) experiences older than maxStaleness model versions.',
  params: StalenessParamsSchema,
  create: async (p, { buffer }) => ({
    name: 'staleness',
    buffers: [buffer],
    sample: async (n, o) =>
      asBatch(
        await buffer.sample(n, {
          step: o.step,
          maxStaleness: p.maxStaleness,
          ...(o.modelVersion !== undefined ? { modelVersion: o.modelVersion } : {}),
          ...(o.now !== undefined ? { now: o.now } : {}),
        }),
      ),
  }),
});
