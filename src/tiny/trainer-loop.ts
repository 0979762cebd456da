import * as tf from '@tensorflow/tfjs';
import type { Adam } from './adam.ts';
import { applyClippedGradients } from './grad-clip.ts';
import { type TinyWeights, withTransposes } from './gru.ts';
import type { TinyPolicy } from './policy.ts';

/**
 * The update loop every tiny trainer shares (policy gradient, DPO, supervised): each trainer
 * supplies its loss, the loop takes the gradients over the policy's variables (summed over
 * micro-batches), clips them to a global norm and applies one Adam step.
 */

/** A trainer's loss over one micro-batch, its tensors built; `dispose` frees them after the gradients. */
export interface ChunkLoss {
  /** The scalar to minimise and, optionally, a vector of parts to report (summed over micro-batches). */
  loss(weights: TinyWeights): { loss: tf.Scalar; parts?: tf.Tensor1D };
  dispose(): void;
}

export interface UpdateResult {
  /** The loss, summed over micro-batches (each already weighted batch-globally). */
  loss: number;
  /** The reported parts, summed over micro-batches (empty when the loss reports none). */
  parts: Float64Array;
  /** The global gradient norm before clipping. */
  gradNorm: number;
}

/**
 * One Adam update of `policy`: the gradients of `chunk(0) … chunk(chunks − 1)`'s losses, summed,
 * clipped to `maxGradNorm` (0: no clipping) and applied.
 */
export function updatePolicy(
  policy: TinyPolicy,
  adam: Adam,
  o: { chunks: number; chunk(index: number): ChunkLoss; maxGradNorm: number },
): UpdateResult {
  let grads: tf.Tensor[] | undefined;
  let loss = 0;
  let parts = new Float64Array(0);
  for (let i = 0; i < o.chunks; i++) {
    const one = chunkGradients(policy, o.chunk(i));
    loss += one.loss;
    if (i === 0) parts = new Float64Array(one.parts.length);
    for (let k = 0; k < one.parts.length; k++) parts[k]! += one.parts[k]!;
    grads = grads === undefined ? one.grads : addGradients(grads, one.grads);
  }
  const gradNorm = applyClippedGradients(adam, policy.variables, grads!, o.maxGradNorm);
  return { loss, parts, gradNorm };
}

/** The loss, its parts and its gradients (in the policy's variable order) for one micro-batch. */
function chunkGradients(
  policy: TinyPolicy,
  chunk: ChunkLoss,
): { loss: number; parts: Float32Array; grads: tf.Tensor[] } {
  const weights = withTransposes(policy.weights());
  let parts: tf.Tensor1D | undefined;
  try {
    const { value, grads } = tf.variableGrads(() => {
      const out = chunk.loss(weights);
      if (out.parts) parts = tf.keep(out.parts);
      return out.loss;
    }, policy.variables as tf.Variable[]);
    const loss = value.dataSync()[0]!;
    value.dispose();
    return {
      loss,
      parts: parts ? Float32Array.from(parts.dataSync()) : new Float32Array(0),
      grads: policy.variables.map((v) => grads[v.name]!),
    };
  } finally {
    parts?.dispose();
    chunk.dispose();
    for (const t of weights.transposed!.values()) t.dispose();
  }
}

/** a + b element-wise; both inputs are disposed. */
function addGradients(a: tf.Tensor[], b: tf.Tensor[]): tf.Tensor[] {
  const sum = a.map((x, i) => tf.add(x, b[i]!));
  for (const x of a) x.dispose();
  for (const x of b) x.dispose();
  return sum;
}
