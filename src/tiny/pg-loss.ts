import * as tf from '@tensorflow/tfjs';

/** The tensors one loss evaluation needs, all over the flat [N] prediction slots of a packed batch. */
export interface PgLossInputs {
  /** One-hot targets [N, V]. */
  targets: tf.Tensor2D;
  /** Behaviour-policy log-probability of each target (filled in for on-policy slots). */
  oldLogprob: tf.Tensor1D;
  advantage: tf.Tensor1D;
  /** Aggregation weight; 0 on slots that are not trained. */
  weight: tf.Tensor1D;
  /** Reference-policy log-probability of each target, when a KL term is used. */
  refLogprob?: tf.Tensor1D;
  /** SFT aggregation weight (expert rows); absent = no SFT part. */
  sftWeight?: tf.Tensor1D;
  /** 1 on slots of replayed (off-policy) rows, 0 elsewhere; absent = every slot on-policy. */
  offPolicy?: tf.Tensor1D;
}

/**
 * How replayed rows' importance ratios ρ = π_θ/π_behaviour (against their stored log-probs) enter
 * the loss. `clip`: the PPO clip of on-policy rows (DOTS' and RePO's off-policy GRPO objective).
 * `shaping`: ExGRPO's policy shaping, −f(ρ)·A with f(ρ) = ρ/(ρ + γ) and no clip, which keeps a
 * gradient on tokens the current policy finds unlikely (arXiv:2510.02245, after LUFFY).
 */
export type OffPolicyMode = 'clip' | 'shaping';

export interface PgLossSettings {
  clipLow: number;
  clipHigh: number;
  klCoef: number;
  entropyCoef: number;
  /** Weight of the policy-gradient part (1 − μ with expert rows in the batch); default 1. */
  pgCoef?: number;
  /** Weight of the SFT part on expert rows (μ); default 0. */
  sftCoef?: number;
  /** Off-policy slots' objective (default `clip`: the same as on-policy ones). */
  offPolicyMode?: OffPolicyMode;
  /** γ of the policy-shaping function f(ρ) = ρ/(ρ + γ); default 0.1. */
  shapingGamma?: number;
}

export interface PgLossOutputs {
  /** The scalar that is minimised. */
  loss: tf.Scalar;
  /**
   * [pg_loss, kl, entropy, clip_frac, ratio_mean] as weighted means over the policy-gradient
   * slots, then sft_loss (the weighted NLL over the expert slots; 0 without them).
   */
  parts: tf.Tensor1D;
}

/**
 * Clipped policy-gradient loss per trained token t (ratio ρ = exp(logπθ − logπold)):
 *   pg_t  = −min(ρ·A, clip(ρ, 1−ε_low, 1+ε_high)·A)
 *   pg_t  = −ρ/(ρ + γ)·A                   (replayed rows under offPolicyMode 'shaping')
 *   kl_t  = exp(logπref − logπθ) − (logπref − logπθ) − 1        (k3 estimator, ≥ 0)
 *   H_t   = −Σ_v π(v) log π(v)                                   (full-distribution entropy)
 *   PG    = Σ_t w_t · (pg_t + β_kl·kl_t − β_H·H_t)
 *   SFT   = Σ_t u_t · (−logπθ)                                  (expert rows, Trinity-RFT's MIX)
 *   loss  = c_pg·PG + c_sft·SFT
 * where w_t (u_t) carries the aggregation (token mean, sequence mean…) over the non-expert
 * (expert) action slots and is 0 elsewhere; c_pg = 1 − μ and c_sft = μ when both kinds of row
 * are present (the trainer picks them).
 */
export function policyGradientLoss(logits: tf.Tensor2D, inp: PgLossInputs, s: PgLossSettings): PgLossOutputs {
  const logpAll = tf.logSoftmax(logits);
  const logp = tf.sum(tf.mul(logpAll, inp.targets), 1);
  const ratio = tf.exp(tf.sub(logp, inp.oldLogprob));
  const unclipped = tf.mul(ratio, inp.advantage);
  const clipped = tf.mul(tf.clipByValue(ratio, 1 - s.clipLow, 1 + s.clipHigh), inp.advantage);
  let pg: tf.Tensor = tf.neg(tf.minimum(unclipped, clipped));
  // Slots whose clip does not apply (shaped replayed rows) count as never clipped.
  let clipMask: tf.Tensor | undefined;
  if (inp.offPolicy !== undefined && s.offPolicyMode === 'shaping') {
    const gamma = s.shapingGamma ?? 0.1;
    const shaped = tf.neg(tf.mul(tf.div(ratio, tf.add(ratio, gamma)), inp.advantage));
    pg = tf.where(tf.greater(inp.offPolicy, 0.5), shaped, pg);
    clipMask = tf.sub(1, inp.offPolicy);
  }
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logpAll), logpAll), 1));
  const wsum = (x: tf.Tensor): tf.Scalar => tf.sum(tf.mul(x, inp.weight)) as tf.Scalar;
  const pgLoss = wsum(pg);
  const entMean = wsum(entropy);
  let kl: tf.Scalar = tf.scalar(0);
  if (inp.refLogprob !== undefined) {
    const d = tf.sub(inp.refLogprob, logp);
    kl = wsum(tf.sub(tf.sub(tf.exp(d), d), 1));
  }
  let loss: tf.Scalar = pgLoss;
  if (s.klCoef > 0) loss = tf.add(loss, tf.mul(kl, s.klCoef)) as tf.Scalar;
  if (s.entropyCoef > 0) loss = tf.sub(loss, tf.mul(entMean, s.entropyCoef)) as tf.Scalar;
  const pgCoef = s.pgCoef ?? 1;
  if (pgCoef !== 1) loss = tf.mul(loss, pgCoef) as tf.Scalar;
  let sft: tf.Scalar = tf.scalar(0);
  if (inp.sftWeight !== undefined) {
    sft = tf.neg(tf.sum(tf.mul(logp, inp.sftWeight))) as tf.Scalar;
    const sftCoef = s.sftCoef ?? 0;
    if (sftCoef !== 0) loss = tf.add(loss, tf.mul(sft, sftCoef)) as tf.Scalar;
  }
  // A slot counts as clipped when the clipped branch is the one that binds (its gradient is zero).
  const binds = tf.cast(tf.less(clipped, unclipped), 'float32');
  const clipFrac = wsum(clipMask === undefined ? binds : tf.mul(binds, clipMask));
  const parts = tf.stack([pgLoss, kl, entMean, clipFrac, wsum(ratio), sft]) as tf.Tensor1D;
  return { loss: loss as tf.Scalar, parts };
}
