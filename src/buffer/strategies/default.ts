import { z } from 'zod';
import { asBatch, defineStrategy } from './strategy.ts';

/** Draw the batch from the main buffer with its sampler, nothing else. */
export const defaultStrategy = defineStrategy({
  name: 'default',
  description: 'The batch comes from the main buffer through its sampler.',
  params: z.strictObject({}),
  create: async (_p, { buffer }) => ({
    name: 'default',
    buffers: [buffer],
    sample: async (n, o) =>
      asBatch(
        await buffer.sample(n, {
          step: o.step,
          ...(o.modelVersion !== undefined ? { modelVersion: o.modelVersion } : {}),
          ...(o.now !== undefined ? { now: o.now } : {}),
        }),
      ),
  }),
});
