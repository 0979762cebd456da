import { ConfigError } from '../core/errors.ts';
import { defineTrainer } from '../trainer/trainer-definition.ts';
import { DpoConfigSchema } from './dpo-config.ts';
import type { TinyPolicy } from './policy.ts';

/**
 * The built-in DPO trainer for the tiny policy: preference pairs from each batch's groups, DPO
 * loss against the weights at the start of training. Its params schema is TF-free; the trainer
 * itself (and TensorFlow.js) loads only when a run builds it.
 */
export const dpoTrainer = defineTrainer({
  name: 'dpo',
  description:
    'DPO on preference pairs (best vs worst reward per group) for the built-in tiny policy; see docs/trainer.md',
  params: DpoConfigSchema,
  create: async (p, ctx) => {
    if (ctx.trainable?.kind !== 'tiny') {
      throw new ConfigError({
        path: `${ctx.path}.type`,
        ...(ctx.file ? { file: ctx.file } : {}),
        message: "dpo trains the built-in tiny policy; with an external model use trainer type 'export'",
      });
    }
    const { DpoTrainer } = await import('./dpo-trainer.ts');
    // The door parsed `p` with this definition's schema: the trainer takes it as it is.
    return new DpoTrainer(ctx.trainable.policy as TinyPolicy, p, { parsed: true });
  },
});
