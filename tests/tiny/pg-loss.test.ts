import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Adam } from '../../src/tiny/adam.ts';
import { selectBackend } from '../../src/tiny/backend.ts';
import { policyGradientLoss } from '../../src/tiny/pg-loss.ts';

beforeAll(async () => {
  await selectBackend();
});

/** The loss of docs/trainer.md, computed in float64 JS for comparison. */
function reference(
  logits: number[][],
  targets: number[],
  old: number[],
  adv: number[],
  weight: number[],
  ref: number[] | undefined,
  s: { clipLow: number; clipHigh: number; klCoef: number; entropyCoef: number },
) {
  let pg = 0;
  let kl = 0;
  let ent = 0;
  let clipFrac = 0;
  logits.forEach((row, i) => {
    const max = Math.max(...row);
    const z = Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0)) + max;
    const logp = row[targets[i]!]! - z;
    const ratio = Math.exp(logp - old[i]!);
    const un = ratio * adv[i]!;
    const cl = Math.min(Math.max(ratio, 1 - s.clipLow), 1 + s.clipHigh) * adv[i]!;
    pg += weight[i]! * -Math.min(un, cl);
    if (cl < un) clipFrac += weight[i]!;
    ent += weight[i]! * -row.reduce((a, x) => a + Math.exp(x - z) * (x - z), 0);
    if (ref) {
      const d = ref[i]! - logp;
      kl += weight[i]! * (Math.exp(d) - d - 1);
    }
  });
  return { loss: pg + s.klCoef * kl - s.entropyCoef * ent, pg, kl, ent, clipFrac };
}

describe('policyGradientLoss', () => {
  const logits = [
    [0.5, 2, -1],
    [1, 0, 0],
    [-0.5, 0.25, 3],
    [0, 0, 0],
  ];
  const targets = [1, 0, 2, 1];
  // ratios ≈ 1.35 (clipped for A > 0), 0.61 (clipped for A < 0), 1.0, ~1.1
  const old = [-0.72, -0.06, -0.1, -1.2];
  const adv = [1, -2, 0.5, -1];
  const weight = [0.25, 0.25, 0.25, 0.25];
  const ref = [-0.3, -0.9, -0.2, -1.1];
  const settings = { clipLow: 0.2, clipHigh: 0.28, klCoef: 0.1, entropyCoef: 0.01 };

  it('matches the documented formula (pg, k3 KL, entropy, clip fraction)', () => {
    const out = tf.tidy(() => {
      const r = policyGradientLoss(
        tf.tensor2d(logits),
        {
          targets: tf.oneHot(tf.tensor1d(targets, 'int32'), 3) as tf.Tensor2D,
          oldLogprob: tf.tensor1d(old),
          advantage: tf.tensor1d(adv),
          weight: tf.tensor1d(weight),
          refLogprob: tf.tensor1d(ref),
        },
        settings,
      );
      return [r.loss.dataSync()[0]!, ...r.parts.dataSync()];
    });
    const want = reference(logits, targets, old, adv, weight, ref, settings);
    expect(out[0]).toBeCloseTo(want.loss, 5);
    expect(out[1]).toBeCloseTo(want.pg, 5);
    expect(out[2]).toBeCloseTo(want.kl, 5);
    expect(out[3]).toBeCloseTo(want.ent, 5);
    expect(out[4]).toBeCloseTo(want.clipFrac, 6);
    expect(want.clipFrac).toBe(0.5); // the first two slots are clipped
  });

  it('has the REINFORCE gradient −A·∇logπ at ratio 1', () => {
    const x = tf.variable(tf.tensor2d([[0.3, -0.2, 0.1]]));
    const { grads } = tf.variableGrads(() => {
      const logp = tf.sum(tf.mul(tf.logSoftmax(x), tf.tensor2d([[0, 1, 0]])), 1);
      const oldLp = logp.dataSync()[0]!;
      return policyGradientLoss(
        x as unknown as tf.Tensor2D,
        {
          targets: tf.tensor2d([[0, 1, 0]]),
          oldLogprob: tf.tensor1d([oldLp]),
          advantage: tf.tensor1d([2]),
          weight: tf.tensor1d([1]),
        },
        { clipLow: 0.2, clipHigh: 0.2, klCoef: 0, entropyCoef: 0 },
      ).loss;
    });
    const g = [...grads[x.name]!.dataSync()];
    const p = [0.3, -0.2, 0.1].map((v) => Math.exp(v));
    const z = p.reduce((a, b) => a + b, 0);
    const want = [0, 1, 0].map((t, i) => -2 * (t - p[i]! / z));
    g.forEach((v, i) => {
      expect(v).toBeCloseTo(want[i]!, 5);
    });
    x.dispose();
  });
});

describe('Adam', () => {
  it('matches a float64 reference within float32 precision and keeps its step count', () => {
    const p = tf.variable(tf.tensor1d([1, -2, 0.5]));
    const adam = new Adam([p], { lr: 0.1, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01 });
    const theta = [1, -2, 0.5];
    const m = [0, 0, 0];
    const v = [0, 0, 0];
    const gradsSeq = [
      [0.5, -1, 2],
      [0.1, 0.2, -0.3],
      [-1, 0.5, 0.25],
    ];
    gradsSeq.forEach((g, k) => {
      const t = k + 1;
      const gt = tf.tensor1d(g);
      adam.apply([p], [gt]);
      gt.dispose();
      for (let i = 0; i < 3; i++) {
        m[i] = 0.9 * m[i]! + 0.1 * g[i]!;
        v[i] = 0.99 * v[i]! + 0.01 * g[i]! ** 2;
        const mh = m[i]! / (1 - 0.9 ** t);
        const vh = v[i]! / (1 - 0.99 ** t);
        theta[i] = theta[i]! - (0.1 * mh) / (Math.sqrt(vh) + 1e-8) - 0.1 * 0.01 * theta[i]!;
      }
    });
    const got = [...p.dataSync()];
    got.forEach((x, i) => {
      expect(x).toBeCloseTo(theta[i]!, 5);
    });
    expect(adam.step).toBe(3);
    const mom = adam.moments();
    mom.m[0]!.forEach((x, i) => {
      expect(x).toBeCloseTo(m[i]!, 6);
    });
    mom.v[0]!.forEach((x, i) => {
      expect(x).toBeCloseTo(v[i]!, 6);
    });
    adam.dispose();
    p.dispose();
  });
});
