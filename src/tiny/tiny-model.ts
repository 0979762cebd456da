import { z } from 'zod';
import { defineModel } from '../explorer/models/model-definition.ts';

/**
 * The built-in tiny tfjs policy. TensorFlow.js loads only when a run builds this model (the import
 * sits inside `create`), so `import 'winnow'` stays free of it.
 */
export const tinyModel = defineModel({
  name: 'tiny',
  description: 'the built-in tiny character-level policy (TensorFlow.js, CPU); see docs/tiny-policy.md',
  params: z.strictObject({
    path: z
      .string()
      .min(1)
      .describe(
        'Folder holding a tiny-policy checkpoint (manifest.json + weights.bin), relative to the config file.',
      ),
  }),
  create: async (p, ctx) => {
    const m = await import('./model-handle.ts');
    return m.createTinyModelHandle(p, ctx);
  },
});
