import { z } from 'zod';
import { VOCAB_SIZE } from './vocab.ts';

/** Shape of the tiny policy: a stack of GRU layers over one-hot characters, then a dense softmax head. */
export const TinyPolicyConfigSchema = z.object({
  /** GRU hidden width. */
  hidden: z.number().int().min(4).max(1024).default(128),
  /** Number of stacked GRU layers. */
  layers: z.number().int().min(1).max(4).default(1),
  /** Seed of the weight initialisation (weights are drawn with Rng, never tf.random). */
  initSeed: z.number().int().default(0),
  /** Fixed by the vocabulary; stored so a weights file from another vocabulary is refused. */
  vocabSize: z.literal(VOCAB_SIZE).default(VOCAB_SIZE),
});
export type TinyPolicyConfig = z.infer<typeof TinyPolicyConfigSchema>;
export type TinyPolicyConfigInput = z.input<typeof TinyPolicyConfigSchema>;
