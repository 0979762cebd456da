import * as tf from '@tensorflow/tfjs';

/**
 * The tiny policy's forward pass, written with plain tf ops so gradients work on every backend.
 * Shaped by what is fast on the wasm backend (measured, tfjs 4.22):
 * - inputs are one-hot rows times a dense matrix: the wasm backend has no gradient kernel for
 *   gather (UnsortedSegmentSum);
 * - matrix products with a transposed operand run ~10× slower there than plain ones, so `mm`
 *   carries its own gradient built from explicit transposes;
 * - slicing a tensor copies the whole source out of the wasm heap, so each gate has its own
 *   weight matrix (no per-step splits) and inputs/heads are computed per step (no big slices).
 *
 * GRU with the reset gate applied after the recurrent product:
 *   z = σ(x·Wxz + h·Whz + bz)      r = σ(x·Wxr + h·Whr + br)
 *   n = tanh(x·Wxn + bxn + r ⊙ (h·Whn + bhn))      h' = n + z ⊙ (h − n)
 */
export interface GruWeights {
  wxz: tf.Tensor2D;
  wxr: tf.Tensor2D;
  wxn: tf.Tensor2D;
  whz: tf.Tensor2D;
  whr: tf.Tensor2D;
  whn: tf.Tensor2D;
  bz: tf.Tensor1D;
  br: tf.Tensor1D;
  bxn: tf.Tensor1D;
  bhn: tf.Tensor1D;
}

export interface TinyWeights {
  hidden: number;
  vocabSize: number;
  layers: GruWeights[];
  outW: tf.Tensor2D;
  outB: tf.Tensor1D;
  /** Constant added to the logits: −1e9 for PAD (never a valid output), 0 elsewhere. */
  headMask: tf.Tensor1D;
  /** Precomputed transposes of the weight matrices (see withTransposes), used by gradients. */
  transposed?: ReadonlyMap<tf.Tensor, tf.Tensor2D>;
}

/**
 * a·b with a gradient that avoids transposed matrix products: dA = dY·transpose(B),
 * dB = transpose(A)·dY. Transposes the caller already has (`aT`, `bT`) are reused, so an
 * activation feeding three gates, or a weight used at every step, is transposed once.
 */
export function mm(a: tf.Tensor2D, b: tf.Tensor2D, aT?: tf.Tensor2D, bT?: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const x = args[0] as tf.Tensor2D;
    const y = args[1] as tf.Tensor2D;
    const extra: tf.Tensor[] = [];
    if (aT !== undefined) extra.push(aT);
    if (bT !== undefined) extra.push(bT);
    (args[2] as tf.GradSaveFunc)([x, y, ...extra]);
    return {
      value: tf.matMul(x, y),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        let k = 2;
        const sAT = aT !== undefined ? (saved[k++] as tf.Tensor2D) : tf.transpose(saved[0] as tf.Tensor2D);
        const sBT = bT !== undefined ? (saved[k++] as tf.Tensor2D) : tf.transpose(saved[1] as tf.Tensor2D);
        return [tf.matMul(dy, sBT), tf.matMul(sAT, dy)];
      },
    };
  }) as (x: tf.Tensor2D, y: tf.Tensor2D) => tf.Tensor2D;
  return f(a, b);
}

/** c·b for a constant c (a one-hot input): only b gets a gradient, transpose(c)·dY. */
function mmConst(c: tf.Tensor2D, b: tf.Tensor2D, cT?: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    (args[1] as tf.GradSaveFunc)([cT ?? c]);
    return {
      value: tf.matMul(c, args[0] as tf.Tensor2D),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => [
        tf.matMul(cT !== undefined ? (saved[0] as tf.Tensor2D) : tf.transpose(saved[0] as tf.Tensor2D), dy),
      ],
    };
  }) as (bb: tf.Tensor2D) => tf.Tensor2D;
  return f(b);
}

/**
 * One GRU step. `x` is [B, in]; `constInput` marks a one-hot input that needs no gradient.
 * With `forGrad`, the step prepares the transposes its backward pass needs once, up front
 * (pointless work when only sampling).
 */
export function gruStep(
  x: tf.Tensor2D,
  h: tf.Tensor2D,
  w: GruWeights,
  constInput: boolean,
  forGrad = false,
  transposed?: ReadonlyMap<tf.Tensor, tf.Tensor2D>,
): tf.Tensor2D {
  const xT = forGrad ? tf.transpose(x) : undefined;
  const hT = forGrad ? tf.transpose(h) : undefined;
  const t = (m: tf.Tensor2D) => transposed?.get(m);
  const xm = (m: tf.Tensor2D) => (constInput ? mmConst(x, m, xT) : mm(x, m, xT, t(m)));
  const hm = (m: tf.Tensor2D) => mm(h, m, hT, t(m));
  const z = tf.sigmoid(tf.add(tf.add(xm(w.wxz), hm(w.whz)), w.bz));
  const r = tf.sigmoid(tf.add(tf.add(xm(w.wxr), hm(w.whr)), w.br));
  const n = tf.tanh(tf.add(tf.add(xm(w.wxn), w.bxn), tf.mul(r, tf.add(hm(w.whn), w.bhn))));
  return tf.add(n, tf.mul(z, tf.sub(h, n)));
}

/** Output logits [N, V] from hidden states [N, H]. */
export function headLogits(w: TinyWeights, h: tf.Tensor2D, forGrad = false): tf.Tensor2D {
  const hT = forGrad ? tf.transpose(h) : undefined;
  return tf.add(tf.add(mm(h, w.outW, hT, w.transposed?.get(w.outW)), w.outB), w.headMask);
}

/**
 * Transposes of every weight matrix, made outside any gradient tape and attached to a copy of
 * the weights, so a training pass reuses them at every step. Dispose the map's values after.
 */
export function withTransposes(w: TinyWeights): TinyWeights {
  const mats: tf.Tensor2D[] = [w.outW];
  for (const l of w.layers) mats.push(l.wxz, l.wxr, l.wxn, l.whz, l.whr, l.whn);
  return { ...w, transposed: new Map(mats.map((m) => [m, tf.transpose(m)] as const)) };
}

/** One-hot rows of token ids: [N] → [N, V]. */
export function oneHotRows(ids: Int32Array, vocabSize: number): tf.Tensor2D {
  return tf.tidy(() => tf.oneHot(tf.tensor1d(ids, 'int32'), vocabSize) as tf.Tensor2D);
}

/**
 * One step of the whole stack for a batch: feed one-hot `input` [B, V], advance every layer's
 * state, return the new states. `keep` (bool [B, H]), when given, leaves rows whose entry is
 * false untouched (left padding in a batch of prompts); a select, so kept rows are bit-identical
 * to an unmasked step.
 */
export function stackStep(
  w: TinyWeights,
  input: tf.Tensor2D,
  states: readonly tf.Tensor2D[],
  keep?: tf.Tensor2D,
  forGrad = false,
): tf.Tensor2D[] {
  let x = input;
  return w.layers.map((layer, l) => {
    const next = gruStep(x, states[l]!, layer, l === 0, forGrad, w.transposed);
    x = keep === undefined ? next : (tf.where(keep, next, states[l]!) as tf.Tensor2D);
    return x;
  });
}

/** Per-step one-hot inputs of a batch of left-aligned sequences `ids` ([B·S] row-major, one tensor per step). */
export function stepInputs(ids: Int32Array, batch: number, steps: number, vocabSize: number): tf.Tensor2D[] {
  const out: tf.Tensor2D[] = [];
  for (let t = 0; t < steps; t++) {
    const col = new Int32Array(batch);
    for (let b = 0; b < batch; b++) col[b] = ids[b * steps + t]!;
    out.push(oneHotRows(col, vocabSize));
  }
  return out;
}

/**
 * Teacher-forced logits for a batch, given its per-step one-hot inputs (see stepInputs). Pass
 * `forGrad` when differentiating it (see gruStep).
 * Row t·B + b of the result (time-major) is the model's prediction of token t+1 of sequence b.
 * Positions past a sequence's end compute garbage that the caller masks out.
 */
export function sequenceLogits(w: TinyWeights, inputs: readonly tf.Tensor2D[], forGrad = false): tf.Tensor2D {
  const batch = inputs[0]!.shape[0];
  let states: tf.Tensor2D[] = w.layers.map(() => tf.zeros([batch, w.hidden]) as tf.Tensor2D);
  const logits: tf.Tensor2D[] = [];
  for (const x of inputs) {
    states = stackStep(w, x, states, undefined, forGrad);
    logits.push(headLogits(w, states[states.length - 1]!, forGrad));
  }
  return tf.concat(logits, 0);
}
