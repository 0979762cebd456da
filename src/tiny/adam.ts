import * as tf from '@tensorflow/tfjs';

export interface AdamSettings {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled (AdamW) weight decay; 0 turns it off. */
  weightDecay: number;
}

/**
 * Adam with its whole state in plain view (moments + step count), so a checkpoint restores it
 * exactly. tfjs's own Adam rebuilds its bias-correction powers with pow() on load, which is not
 * bit-identical to the running product it keeps while training; here the corrections are
 * recomputed from the step count every step, in float64.
 *   m ← β1·m + (1−β1)·g      v ← β2·v + (1−β2)·g²
 *   θ ← θ − lr·wd·θ − (lr / (1−β1^t)) · m / (√v / √(1−β2^t) + ε)
 */
export class Adam {
  readonly settings: AdamSettings;
  step = 0;
  private readonly m: tf.Variable[];
  private readonly v: tf.Variable[];

  constructor(params: readonly tf.Variable[], settings: AdamSettings) {
    this.settings = settings;
    this.m = params.map((p) => tf.variable(tf.zerosLike(p), false));
    this.v = params.map((p) => tf.variable(tf.zerosLike(p), false));
  }

  /** Apply one update to `params` (same order as at construction) from `grads`. */
  apply(params: readonly tf.Variable[], grads: readonly tf.Tensor[]): void {
    this.step += 1;
    const { lr, beta1, beta2, eps, weightDecay } = this.settings;
    const c1 = 1 - beta1 ** this.step;
    const sqrtC2 = Math.sqrt(1 - beta2 ** this.step);
    tf.tidy(() => {
      params.forEach((p, i) => {
        const g = grads[i]!;
        const m = this.m[i]!;
        const v = this.v[i]!;
        const m1 = tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1));
        const v1 = tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2));
        m.assign(m1);
        v.assign(v1);
        const denom = tf.add(tf.div(tf.sqrt(v1), sqrtC2), eps);
        let next = tf.sub(p, tf.mul(tf.div(m1, denom), lr / c1));
        if (weightDecay > 0) next = tf.sub(next, tf.mul(p, lr * weightDecay));
        p.assign(next);
      });
    });
  }

  /** First and second moments, copied out, in parameter order. */
  moments(): { m: Float32Array[]; v: Float32Array[] } {
    return {
      m: this.m.map((x) => Float32Array.from(x.dataSync() as Float32Array)),
      v: this.v.map((x) => Float32Array.from(x.dataSync() as Float32Array)),
    };
  }

  restore(step: number, m: readonly Float32Array[], v: readonly Float32Array[]): void {
    this.step = step;
    this.m.forEach((x, i) => {
      tf.tidy(() => x.assign(tf.tensor(m[i]!, x.shape, 'float32')));
    });
    this.v.forEach((x, i) => {
      tf.tidy(() => x.assign(tf.tensor(v[i]!, x.shape, 'float32')));
    });
  }

  dispose(): void {
    for (const x of this.m) x.dispose();
    for (const x of this.v) x.dispose();
  }
}
