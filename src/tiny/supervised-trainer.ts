import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { Adam } from './adam.ts';
import { sequenceLogits, stepInputs } from './gru.ts';
import { packExperiences } from './pack.ts';
import type { TinyPolicy } from './policy.ts';
import { updatePolicy } from './trainer-loop.ts';

/** Settings of supervised (teacher-forced cross-entropy) training of the tiny policy. */
export const SupervisedConfigSchema = z
  .object({
    lr: z.number().positive().default(3e-3),
    beta1: z.number().min(0).lt(1).default(0.9),
    beta2: z.number().min(0).lt(1).default(0.999),
    eps: z.number().positive().default(1e-8),
    weightDecay: z.number().min(0).default(0),
    /** Global-norm gradient clipping threshold; 0 turns clipping off. */
    maxGradNorm: z.number().min(0).default(1),
  })
  .strict();
export type SupervisedConfig = z.infer<typeof SupervisedConfigSchema>;

/** A prompt and the completion to imitate (EOS is appended). */
export interface SupervisedExample {
  prompt: string;
  completion: string;
}

/**
 * Teacher-forced cross-entropy on completion tokens (+ EOS), averaged per token, one Adam
 * update per `step`. Used to make the warm start; RL goes through PolicyGradientTrainer.
 */
export class SupervisedTrainer {
  readonly policy: TinyPolicy;
  readonly config: SupervisedConfig;
  private readonly adam: Adam;

  constructor(policy: TinyPolicy, config: z.input<typeof SupervisedConfigSchema> = {}) {
    const parsed = SupervisedConfigSchema.safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({ path: `supervised.${issue.path.join('.')}`, message: issue.message });
    }
    this.policy = policy;
    this.config = parsed.data;
    this.adam = new Adam(policy.variables, { ...this.config });
  }

  /** Learning rate used from the next step on (for schedules). */
  setLearningRate(lr: number): void {
    this.adam.settings.lr = lr;
  }

  /** One update; returns the mean per-token cross-entropy before it and the pre-clip gradient norm. */
  step(examples: readonly SupervisedExample[]): { loss: number; gradNorm: number; tokens: number } {
    const packed = packExperiences(
      examples.map((e, i) => ({
        id: `sft-${i}`,
        prompt: e.prompt,
        response: e.completion,
        truncated: false,
        tokens: [],
        promptLength: 0,
        logprobs: [],
        actionMask: [],
        advantage: 0,
      })),
      'token-mean',
    );
    const B = packed.batch;
    const S = packed.steps;
    const targetTm = new Int32Array(B * S);
    const weightTm = new Float32Array(B * S);
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < S; t++) {
        targetTm[t * B + b] = packed.targets[b * S + t]!;
        weightTm[t * B + b] = packed.weight[b * S + t]!;
      }
    }
    const V = this.policy.config.vocabSize;
    const inputs = stepInputs(packed.inputs, B, S, V);
    const targets = tf.tidy(() => tf.oneHot(tf.tensor1d(targetTm, 'int32'), V));
    const weight = tf.tensor1d(weightTm);
    const { loss, gradNorm } = updatePolicy(this.policy, this.adam, {
      chunks: 1,
      chunk: () => ({
        loss: (w) => {
          const logp = tf.sum(tf.mul(tf.logSoftmax(sequenceLogits(w, inputs, true)), targets), 1);
          return { loss: tf.neg(tf.sum(tf.mul(logp, weight))) as tf.Scalar };
        },
        dispose: () => {
          for (const x of inputs) x.dispose();
          targets.dispose();
          weight.dispose();
        },
      }),
      maxGradNorm: this.config.maxGradNorm,
    });
    return { loss, gradNorm, tokens: packed.actionTokens };
  }

  dispose(): void {
    this.adam.dispose();
  }
}
