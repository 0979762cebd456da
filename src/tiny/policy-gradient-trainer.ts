import * as tf from '@tensorflow/tfjs';
import type { Experience } from '../core/experience.ts';
import type { Trainer, TrainMetrics } from '../trainer/trainer.ts';
import { Adam } from './adam.ts';
import { selectBackend } from './backend.ts';
import { applyClippedGradients } from './grad-clip.ts';
import { sequenceLogits, stepInputs, type TinyWeights, withTransposes } from './gru.ts';
import { type PackedBatch, packExperiences } from './pack.ts';
import {
  type PolicyGradientConfig,
  type PolicyGradientConfigInput,
  parsePolicyGradientConfig,
} from './pg-config.ts';
import { policyGradientLoss } from './pg-loss.ts';
import type { TinyPolicy } from './policy.ts';
import { readTrainerCheckpoint, writeTrainerCheckpoint } from './trainer-checkpoint.ts';

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
}

/**
 * The built-in trainer for the tiny policy: one Adam update per `step` from a clipped
 * policy-gradient loss (PPO-clip / GRPO) with optional k3 KL to a reference policy and an
 * entropy bonus. It updates the policy's variables in place, so an explorer holding the same
 * TinyPolicy object samples from the new weights right after `step` returns.
 */
export class PolicyGradientTrainer implements Trainer {
  readonly name: string = 'policy-gradient';
  readonly policy: TinyPolicy;
  readonly config: PolicyGradientConfig;
  private readonly adam: Adam;
  private reference: TinyPolicy | undefined;
  private ownsReference: boolean;
  private currentVersion: number;

  constructor(
    policy: TinyPolicy,
    config: PolicyGradientConfigInput = {},
    options: PolicyGradientTrainerOptions = {},
  ) {
    this.policy = policy;
    this.config = parsePolicyGradientConfig(config);
    this.adam = new Adam(policy.variables, {
      lr: this.config.lr,
      beta1: this.config.beta1,
      beta2: this.config.beta2,
      eps: this.config.eps,
      weightDecay: this.config.weightDecay,
    });
    this.ownsReference = options.reference === undefined && this.config.klCoef > 0;
    this.reference = options.reference ?? (this.config.klCoef > 0 ? policy.clone() : undefined);
    this.currentVersion = options.version ?? 0;
  }

  /** Select the tf backend named in the config (once per process), then build the trainer. */
  static async create(
    policy: TinyPolicy,
    config: PolicyGradientConfigInput = {},
    options: PolicyGradientTrainerOptions = {},
  ): Promise<PolicyGradientTrainer> {
    const parsed = parsePolicyGradientConfig(config);
    await selectBackend({ prefer: parsed.backend });
    return new PolicyGradientTrainer(policy, parsed, options);
  }

  get version(): number {
    return this.currentVersion;
  }

  /** Adam steps applied so far (equals version minus the starting version, unless loaded). */
  get optimizerStep(): number {
    return this.adam.step;
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
    if (packed.actionTokens === 0) {
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
        sequences: batch.length,
        expert_tokens: 0,
        expert_sequences: 0,
        skipped: 1,
      };
    }
    const vars = this.policy.variables;
    const mb = this.config.microBatchSize > 0 ? this.config.microBatchSize : packed.batch;
    let grads: tf.Tensor[] | undefined;
    const coefs = mixCoefficients(packed, this.config.expertWeight);
    const sums = new Float64Array(7); // loss + the six parts
    for (let start = 0; start < packed.batch; start += mb) {
      const end = Math.min(packed.batch, start + mb);
      const { value, grads: g, parts } = this.microStep(packed, start, end, coefs);
      const partValues = parts.dataSync();
      sums[0]! += value.dataSync()[0]!;
      for (let k = 0; k < 6; k++) sums[k + 1]! += partValues[k]!;
      value.dispose();
      parts.dispose();
      if (grads === undefined) grads = g;
      else {
        const prev = grads;
        grads = prev.map((x, i) => tf.add(x, g[i]!));
        for (const x of prev) x.dispose();
        for (const x of g) x.dispose();
      }
    }
    const gradNorm = applyClippedGradients(this.adam, vars, grads!, this.config.maxGradNorm);
    this.currentVersion += 1;
    return {
      loss: sums[0]!,
      pg_loss: sums[1]!,
      kl: sums[2]!,
      entropy: sums[3]!,
      clip_frac: sums[4]!,
      ratio_mean: sums[5]!,
      sft_loss: sums[6]!,
      grad_norm: gradNorm,
      tokens: packed.actionTokens,
      sequences: packed.activeSequences,
      expert_tokens: packed.expertTokens,
      expert_sequences: packed.expertSequences,
      skipped: 0,
    };
  }

  /** Loss and gradients for rows [start, end) of a packed batch (weights are batch-global, so micro-batch gradients sum to the full one). */
  private microStep(
    p: PackedBatch,
    start: number,
    end: number,
    coefs: MixCoefficients,
  ): { value: tf.Scalar; grads: tf.Tensor[]; parts: tf.Tensor1D } {
    const S = p.steps;
    const rows = end - start;
    // The forward pass is time-major (slot t·rows + b); re-lay the row-major packed arrays to match.
    const tm = <A extends Float32Array | Int32Array>(src: A, make: (n: number) => A): A => {
      const out = make(rows * S);
      for (let b = 0; b < rows; b++)
        for (let t = 0; t < S; t++) out[t * rows + b] = src[(start + b) * S + t]!;
      return out;
    };
    const old = tm(p.oldLogprob, (n) => new Float32Array(n));
    const hasOld = tm(p.hasOld, (n) => new Float32Array(n));
    const offPolicy = tm(p.offPolicy, (n) => new Float32Array(n));
    const action = tm(p.action, (n) => new Float32Array(n));
    const advantage = tm(p.advantage, (n) => new Float32Array(n));
    const weight = tm(p.weight, (n) => new Float32Array(n));
    const expert = tm(p.expert, (n) => new Float32Array(n));
    const sftWeight = coefs.sft > 0 ? tm(p.sftWeight, (n) => new Float32Array(n)) : undefined;
    const targetIds = tm(p.targets, (n) => new Int32Array(n));
    const temperature = this.config.temperature;
    const inputs = stepInputs(p.inputs.subarray(start * S, end * S), rows, S, this.policy.config.vocabSize);
    const targets = tf.tidy(() => tf.oneHot(tf.tensor1d(targetIds, 'int32'), this.policy.config.vocabSize));
    const logits = (w: TinyWeights, forGrad = false) => {
      const raw = sequenceLogits(w, inputs, forGrad);
      return temperature === 1 ? raw : (tf.div(raw, temperature) as tf.Tensor2D);
    };
    const targetLogprobs = (w: TinyWeights): Float32Array =>
      tf.tidy(() => tf.sum(tf.mul(tf.logSoftmax(logits(w)), targets), 1)).dataSync() as Float32Array;

    // Policy-gradient slots without a stored behaviour logprob are on-policy: their ratio is exactly 1.
    const onPolicy = (i: number) => action[i] === 1 && expert[i] !== 1 && hasOld[i] !== 1;
    let missing = false;
    for (let i = 0; i < action.length; i++) if (onPolicy(i)) missing = true;
    if (missing) {
      const current = targetLogprobs(this.policy.weights());
      for (let i = 0; i < action.length; i++) if (onPolicy(i)) old[i] = current[i]!;
    }
    const refLogprob =
      this.config.klCoef > 0 && this.reference !== undefined
        ? tf.tensor1d(targetLogprobs(this.reference.weights()))
        : undefined;
    const oldT = tf.tensor1d(old);
    const advT = tf.tensor1d(advantage);
    const weightT = tf.tensor1d(weight);
    const sftWeightT = sftWeight === undefined ? undefined : tf.tensor1d(sftWeight);
    const offPolicyT = tf.tensor1d(offPolicy);
    let parts: tf.Tensor1D | undefined;
    const settings = {
      clipLow: this.config.clipLow,
      clipHigh: this.config.clipHigh ?? this.config.clipLow,
      klCoef: this.config.klCoef,
      entropyCoef: this.config.entropyCoef,
      pgCoef: coefs.pg,
      sftCoef: coefs.sft,
      offPolicyMode: this.config.offPolicy.mode,
      shapingGamma: this.config.offPolicy.shapingGamma,
    };
    const weights = withTransposes(this.policy.weights());
    try {
      const { value, grads } = tf.variableGrads(() => {
        const out = policyGradientLoss(
          logits(weights, true),
          {
            targets: targets as tf.Tensor2D,
            oldLogprob: oldT,
            advantage: advT,
            weight: weightT,
            offPolicy: offPolicyT,
            ...(refLogprob === undefined ? {} : { refLogprob }),
            ...(sftWeightT === undefined ? {} : { sftWeight: sftWeightT }),
          },
          settings,
        );
        parts = tf.keep(out.parts);
        return out.loss;
      }, this.policy.variables as tf.Variable[]);
      const ordered = this.policy.variables.map((v) => grads[v.name]!);
      return { value, grads: ordered, parts: parts! };
    } finally {
      targets.dispose();
      for (const x of inputs) x.dispose();
      oldT.dispose();
      advT.dispose();
      weightT.dispose();
      offPolicyT.dispose();
      sftWeightT?.dispose();
      refLogprob?.dispose();
      for (const t of weights.transposed!.values()) t.dispose();
    }
  }

  /** Write weights, Adam moments and step, version, config and the reference policy under `dir`. */
  async save(dir: string): Promise<void> {
    const { m, v } = this.adam.moments();
    await writeTrainerCheckpoint(dir, {
      trainer: this.name,
      version: this.currentVersion,
      optimizerStep: this.adam.step,
      config: this.config,
      policy: this.policy,
      m,
      v,
      ...(this.reference === undefined ? {} : { reference: this.reference }),
    });
  }

  /** Restore what `save` wrote. The policy's architecture must match the checkpoint's. */
  async load(dir: string): Promise<void> {
    const ckpt = await readTrainerCheckpoint(dir, this.policy.config);
    this.policy.setWeights(ckpt.weights);
    this.adam.restore(ckpt.optimizerStep, ckpt.m, ckpt.v);
    this.currentVersion = ckpt.version;
    if (ckpt.reference !== undefined) {
      if (this.reference === undefined) {
        this.reference = this.policy.clone();
        this.ownsReference = true;
      }
      this.reference.setWeights(ckpt.reference);
    }
  }

  dispose(): void {
    this.adam.dispose();
    if (this.ownsReference) this.reference?.dispose();
  }
}
