import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { TfBackendNameSchema } from './backend-name.ts';

/** Settings of the built-in policy-gradient trainer (PPO-clip / GRPO-style loss on the tiny policy). */
export const PolicyGradientConfigSchema = z
  .object({
    lr: z.number().positive().default(1e-3),
    beta1: z.number().min(0).lt(1).default(0.9),
    beta2: z.number().min(0).lt(1).default(0.999),
    eps: z.number().positive().default(1e-8),
    /** Decoupled weight decay (AdamW); 0 = plain Adam. */
    weightDecay: z.number().min(0).default(0),
    /** Lower clip range ε: ratios below 1−ε stop pulling (for negative advantages). */
    clipLow: z.number().min(0).default(0.2),
    /** Upper clip range; defaults to clipLow (asymmetric "clip-higher" when set larger). */
    clipHigh: z.number().min(0).optional(),
    /** How per-token losses become the batch loss. */
    lossAgg: z.enum(['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum']).default('token-mean'),
    /** Coefficient of the k3 KL estimate to the reference policy; 0 skips the reference pass. */
    klCoef: z.number().min(0).default(0),
    /** Coefficient of the entropy bonus (subtracted from the loss). */
    entropyCoef: z.number().min(0).default(0),
    /**
     * μ of Trinity-RFT's MIX: with expert rows (`expert: true`) in a batch the loss is
     * (1 − μ)·policy-gradient loss + μ·SFT loss on the expert rows.
     */
    expertWeight: z
      .number()
      .min(0)
      .max(1)
      .default(0.1)
      .describe('Weight μ of the SFT loss on expert rows: loss = (1 − μ)·PG + μ·SFT when a batch has both.'),
    /**
     * How replayed rows (delivered before: `useCount > 1`) are corrected against their stored
     * behaviour log-probs: `clip` (PPO clip, as on-policy rows) or `shaping` (ExGRPO's ρ/(ρ + γ)).
     */
    offPolicy: z
      .strictObject({
        mode: z.enum(['clip', 'shaping']).default('clip'),
        shapingGamma: z.number().positive().default(0.1),
      })
      .default({ mode: 'clip', shapingGamma: 0.1 })
      .describe("Replayed rows' correction: clip (PPO clip) or shaping (ExGRPO, f(ρ) = ρ/(ρ + γ))."),
    /** Global-norm gradient clipping threshold; 0 turns clipping off. */
    maxGradNorm: z.number().min(0).default(1),
    /** Sequences per forward/backward pass; gradients are summed across micro-batches. 0 = whole batch. */
    microBatchSize: z.number().int().min(0).default(0),
    /** Sampling temperature the rollouts used: logits are divided by it so ratios compare like with like. */
    temperature: z.number().positive().default(1),
    /** tf backend preference (WINNOW_TF_BACKEND wins). */
    backend: z.union([TfBackendNameSchema, z.literal('auto')]).default('auto'),
  })
  .strict();
export type PolicyGradientConfig = z.infer<typeof PolicyGradientConfigSchema>;
export type PolicyGradientConfigInput = z.input<typeof PolicyGradientConfigSchema>;

/** Parse trainer settings, reporting the first problem with its config path under `prefix`. */
export function parsePolicyGradientConfig(input: unknown, prefix = 'trainer'): PolicyGradientConfig {
  const parsed = PolicyGradientConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    throw new ConfigError({ path, message: issue.message });
  }
  return parsed.data;
}
