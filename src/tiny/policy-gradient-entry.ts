import { ConfigError } from '../core/errors.ts';
import { defineTrainer } from '../trainer/trainer-definition.ts';
import { PolicyGradientConfigSchema } from './pg-config.ts';
import type { TinyPolicy } from './policy.ts';

/**
 * The built-in policy-gradient trainer for the tiny policy. Its params schema is TF-free; the
 * trainer itself (and TensorFlow.js) loads only when a run builds it.
 */
export const policyGradientTrainer = defineTrainer({
  name: 'policy_gradient',
  description: 'PPO-clip / GRPO policy-gradient updates of the built-in tiny policy; see docs/trainer.md',
  params: PolicyGradientConfigSchema,
  create: async (p, ctx) => {
    if (ctx.trainable?.kind !== 'tiny') {
      throw new ConfigError({
        path: `${ctx.path}.type`,
        ...(ctx.file ? { file: ctx.file } : {}),
        message:
          "policy_gradient trains the built-in tiny policy; with an external model use trainer type 'export'",
      });
    }
    const { PolicyGradientTrainer } = await import('./policy-gradient-trainer.ts');
    // The door parsed `p` with this definition's schema: the trainer takes it as it is.
    return new PolicyGradientTrainer(ctx.trainable.policy as TinyPolicy, p, { parsed: true });
  },
});
