import * as tf from '@tensorflow/tfjs';
import type { Experience } from '../core/experience.ts';
import type { Trainer, TrainMetrics } from '../trainer/trainer.ts';
import { selectBackend } from './backend.ts';
import { sequenceLogits, stepInputs, type TinyWeights } from './gru.ts';
import { type PackedBatch, packExperiences } from './pack.ts';
import {
  type PolicyGradientConfig,
  type PolicyGradientConfigInput,
  parsePolicyGradientConfig,
} from './pg-config.ts';
import { policyGradientLoss } from './pg-loss.ts';
import type { TinyPolicy } from './policy.ts';
import { TinyTrainer } from './tiny-trainer.ts';
import type { ChunkLoss } from './trainer-loop.ts';

/** Weights of the two parts of the loss (Trinity-RFT's MIX: (1 − μ)·PG + μ·SFT). */
export interface MixCoefficients {
  pg: number;
  sft: number;
}

/**
 * (1 − μ, μ) when the batch has both expert and non-expert action tokens; a batch of one kind
 * trains on that part alone at full weight, so a batch without expert rows is the plain
 * policy-gradient step.
 */
export function mixCoefficients(
  p: Pick<PackedBatch, 'actionTokens' | 'expertTokens'>,
  expertWeight: number,
): MixCoefficients {
  const hasSft = p.expertTokens > 0;
  const hasPg = p.actionTokens - p.expertTokens > 0;
  if (hasSft && hasPg) return { pg: 1 - expertWeight, sft: expertWeight };
  return hasSft ? { pg: 0, sft: 1 } : { pg: 1, sft: 0 };
}

export interface PolicyGradientTrainerOptions {
  /**
   * Frozen reference policy for the KL term. When klCoef > 0 and none is given, a copy of the
   * policy as it is at construction is used. Saved with checkpoints either way.
   */
  reference?: TinyPolicy;
  /** Starting version (e.g. the warm start's model version); default 0. */
  version?: number;
  /** `config` is already parsed (a run's door parsed it with the same schema): it is taken as it is. */
  parsed?: boolean;
}

/**
 * The built-in trainer for the tiny policy: one Adam update per `step` from a clipped
 * policy-gradient loss (PPO-clip / GRPO) with optional k3 KL to a reference policy and an
 * entropy bonus. It updates the policy's variables in place, so an explorer holding the same
 * TinyPolicy object samples from the new weights right after `step` returns.
 */
export class PolicyGradientTrainer extends TinyTrainer implements Trainer {
  readonly name: string = 'policy-gradient';
  readonly config: PolicyGradientConfig;

  constructor(
    policy: TinyPolicy,
    config: PolicyGradientConfigInput = {},
    options: PolicyGradientTrainerOptions = {},
  ) {
    const parsed = options.parsed ? (config as PolicyGradientConfig) : parsePolicyGradientConfig(config);
    const ownsReference = options.reference === undefined && parsed.klCoef > 0;
    super(policy, parsed, {
      reference: options.reference ?? (parsed.klCoef > 0 ? policy.clone() : undefined),
      ownsReference,
      version: options.version ?? 0,
    });
    this.config = parsed;
  }

  /** Select the tf backend named in the config (once per process), then build the trainer. */
  static async create(
    policy: TinyPolicy,
    config: PolicyGradientConfigInput = {},
    options: PolicyGradientTrainerOptions = {},
  ): Promise<PolicyGradientTrainer> {
    const parsed = parsePolicyGradientConfig(config);
    await selectBackend({ prefer: parsed.backend });
    return new PolicyGradientTrainer(policy, parsed, { ...options, parsed: true });
  }

  /** A copy of the current weights (for a weight sync to another TinyPolicy via setWeights). */
  exportWeights(): Float32Array[] {
    return this.policy.getWeights();
  }

  /**
   * One update from `batch`. Metrics: loss, pg_loss, kl, entropy, clip_frac, ratio_mean (weighted
   * like the loss, over non-expert rows), sft_loss (NLL over expert rows), grad_norm (before
   * clipping), tokens and sequences (both kinds), expert_tokens, expert_sequences, skipped.
   * A batch with no action tokens applies no update and leaves `version` unchanged.
   */
  async step(batch: readonly Experience[]): Promise<TrainMetrics> {
    const packed = packExperiences(batch, this.config.lossAgg);
    if (packed.actionTokens === 0) return skippedMetrics(batch.length);
    const mb = this.config.microBatchSize > 0 ? this.config.microBatchSize : packed.batch;
    const coefs = mixCoefficients(packed, this.config.expertWeight);
    const { loss, parts, gradNorm } = this.update(Math.ceil(packed.batch / mb), (i) =>
      this.chunkLoss(packed, i * mb, Math.min(packed.batch, (i + 1) * mb), coefs),
    );
    return {
      loss,
      pg_loss: parts[0]!,
      kl: parts[1]!,
      entropy: parts[2]!,
      clip_frac: parts[3]!,
      ratio_mean: parts[4]!,
      sft_loss: parts[5]!,
      grad_norm: gradNorm,
      tokens: packed.actionTokens,
      sequences: packed.activeSequences,
      expert_tokens: packed.expertTokens,
      expert_sequences: packed.expertSequences,
      skipped: 0,
    };
  }

  /** The loss over rows [start, end) of a packed batch (weights are batch-global, so micro-batch gradients sum to the full one). */
  private chunkLoss(p: PackedBatch, start: number, end: number, coefs: MixCoefficients): ChunkLoss {
    const c = this.config;
    const rows = end - start;
    const tm = timeMajor(p, start, end);
    const V = this.policy.config.vocabSize;
    const inputs = stepInputs(p.inputs.subarray(start * p.steps, end * p.steps), rows, p.steps, V);
    const targets = tf.tidy(() => tf.oneHot(tf.tensor1d(tm.targets, 'int32'), V)) as tf.Tensor2D;
    const logits = (w: TinyWeights, forGrad = false) => {
      const raw = sequenceLogits(w, inputs, forGrad);
      return c.temperature === 1 ? raw : (tf.div(raw, c.temperature) as tf.Tensor2D);
    };
    const targetLogprobs = (w: TinyWeights): Float32Array =>
      tf.tidy(() => tf.sum(tf.mul(tf.logSoftmax(logits(w)), targets), 1)).dataSync() as Float32Array;
    fillOnPolicyLogprobs(tm, () => targetLogprobs(this.policy.weights()));
    const refLogprob =
      c.klCoef > 0 && this.reference !== undefined
        ? tf.tensor1d(targetLogprobs(this.reference.weights()))
        : undefined;
    const oldLogprob = tf.tensor1d(tm.old);
    const advantage = tf.tensor1d(tm.advantage);
    const weight = tf.tensor1d(tm.weight);
    const offPolicy = tf.tensor1d(tm.offPolicy);
    const sftWeight = coefs.sft > 0 ? tf.tensor1d(tm.sftWeight()) : undefined;
    const settings = {
      clipLow: c.clipLow,
      clipHigh: c.clipHigh ?? c.clipLow,
      klCoef: c.klCoef,
      entropyCoef: c.entropyCoef,
      pgCoef: coefs.pg,
      sftCoef: coefs.sft,
      offPolicyMode: c.offPolicy.mode,
      shapingGamma: c.offPolicy.shapingGamma,
    };
    const inputsOf = {
      targets,
      oldLogprob,
      advantage,
      weight,
      offPolicy,
      ...(refLogprob === undefined ? {} : { refLogprob }),
      ...(sftWeight === undefined ? {} : { sftWeight }),
    };
    return {
      loss: (w) => policyGradientLoss(logits(w, true), inputsOf, settings),
      dispose: () => {
        targets.dispose();
        for (const x of inputs) x.dispose();
        for (const x of [oldLogprob, advantage, weight, offPolicy, sftWeight, refLogprob]) x?.dispose();
      },
    };
  }
}

/** The metrics of a batch with no action tokens: no update. */
function skippedMetrics(sequences: number): TrainMetrics {
  return {
    loss: 0,
    pg_loss: 0,
    sft_loss: 0,
    kl: 0,
    entropy: 0,
    clip_frac: 0,
    ratio_mean: 0,
    grad_norm: 0,
    tokens: 0,
    sequences,
    expert_tokens: 0,
    expert_sequences: 0,
    skipped: 1,
  };
}

/** Rows [start, end) of a packed batch re-laid time-major (slot t·rows + b), as the forward pass lays them. */
interface TimeMajorRows {
  old: Float32Array;
  hasOld: Float32Array;
  /** 1 on a replayed row's policy-gradient slots (the loss corrects them against `old`). */
  offPolicy: Float32Array;
  action: Float32Array;
  advantage: Float32Array;
  weight: Float32Array;
  expert: Float32Array;
  targets: Int32Array;
  sftWeight(): Float32Array;
}

function timeMajor(p: PackedBatch, start: number, end: number): TimeMajorRows {
  const S = p.steps;
  const rows = end - start;
  const tm = <A extends Float32Array | Int32Array>(src: A, make: (n: number) => A): A => {
    const out = make(rows * S);
    for (let b = 0; b < rows; b++) for (let t = 0; t < S; t++) out[t * rows + b] = src[(start + b) * S + t]!;
    return out;
  };
  const f32 = (src: Float32Array) => tm(src, (n) => new Float32Array(n));
  return {
    old: f32(p.oldLogprob),
    hasOld: f32(p.hasOld),
    offPolicy: f32(p.offPolicy),
    action: f32(p.action),
    advantage: f32(p.advantage),
    weight: f32(p.weight),
    expert: f32(p.expert),
    targets: tm(p.targets, (n) => new Int32Array(n)),
    sftWeight: () => f32(p.sftWeight),
  };
}

/** Policy-gradient slots without a stored behaviour logprob are on-policy: their ratio is exactly 1. */
function fillOnPolicyLogprobs(tm: TimeMajorRows, current: () => Float32Array): void {
  const onPolicy = (i: number) => tm.action[i] === 1 && tm.expert[i] !== 1 && tm.hasOld[i] !== 1;
  let missing = false;
  for (let i = 0; i < tm.action.length; i++) if (onPolicy(i)) missing = true;
  if (!missing) return;
  const now = current();
  for (let i = 0; i < tm.action.length; i++) if (onPolicy(i)) tm.old[i] = now[i]!;
}
