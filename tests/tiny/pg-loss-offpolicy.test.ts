import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/tiny/backend.ts';
import { type OffPolicyMode, policyGradientLoss } from '../../src/tiny/pg-loss.ts';

/**
 * Golden vectors for the off-policy correction (issue 42), shared with the Python reference
 * trainer's test (tests/python/offpolicy-loss.test.ts). Every expected number is worked out by hand:
 * ρ = p/oldP = [1.25, 0.6, 2, 0.25]; PPO clip at 0.2 binds on all four tokens, so under `clip`
 * the gradient is zero everywhere; ExGRPO's shaping −ρ/(ρ+0.1)·A on the replayed tokens 3 and 4
 * gives −0.952381 and +1.428571 and keeps their gradient: −A·γρ/(ρ+γ)² per token.
 */
const G = JSON.parse(readFileSync(new URL('./offpolicy-golden.json', import.meta.url), 'utf8')) as {
  p: number[];
  oldP: number[];
  advantage: number[];
  offPolicy: number[];
  weight: number[];
  clipLow: number;
  clipHigh: number;
  shapingGamma: number;
  ratio: number[];
  clip: { pgLoss: number; clipFrac: number };
  shaping: { pgLoss: number; clipFrac: number; dLossDLogpOfToken3: number };
  ratioMean: number;
};

beforeAll(async () => {
  await selectBackend();
});

function evaluate(mode: OffPolicyMode | undefined) {
  const logitRows = G.p.map((p) => [Math.log(p), Math.log(1 - p)]);
  const logits = tf.variable(tf.tensor2d(logitRows));
  const inputs = {
    targets: tf.oneHot(tf.tensor1d([0, 0, 0, 0], 'int32'), 2) as tf.Tensor2D,
    oldLogprob: tf.tensor1d(G.oldP.map(Math.log)),
    advantage: tf.tensor1d(G.advantage),
    weight: tf.tensor1d(G.weight),
    offPolicy: tf.tensor1d(G.offPolicy),
  };
  const settings = {
    clipLow: G.clipLow,
    clipHigh: G.clipHigh,
    klCoef: 0,
    entropyCoef: 0,
    shapingGamma: G.shapingGamma,
    ...(mode === undefined ? {} : { offPolicyMode: mode }),
  };
  let parts: number[] = [];
  const { value, grads } = tf.variableGrads(() => {
    const out = policyGradientLoss(logits as unknown as tf.Tensor2D, inputs, settings);
    parts = Array.from(out.parts.dataSync());
    return out.loss;
  }, [logits]);
  const grad = grads[logits.name]!.arraySync() as number[][];
  return { loss: value.dataSync()[0]!, parts, grad };
}

describe('off-policy correction: golden vectors', () => {
  it('clip (the default; DOTS and RePO): every token clipped, loss 0, no gradient', () => {
    for (const mode of [undefined, 'clip'] as const) {
      const r = evaluate(mode);
      expect(r.loss).toBeCloseTo(G.clip.pgLoss, 6);
      expect(r.parts[3]).toBeCloseTo(G.clip.clipFrac, 6); // clip_frac
      expect(r.parts[4]).toBeCloseTo(G.ratioMean, 6); // ratio_mean
      for (const row of r.grad) for (const x of row) expect(Math.abs(x)).toBeLessThan(1e-7);
    }
  });

  it('shaping (ExGRPO): replayed tokens get −ρ/(ρ+γ)·A, unclipped, with their gradient kept', () => {
    const r = evaluate('shaping');
    expect(r.loss).toBeCloseTo(G.shaping.pgLoss, 6);
    expect(r.parts[3]).toBeCloseTo(G.shaping.clipFrac, 6);
    // d loss / d logit of token 3 = dL/dlogp · [1 − p, −(1 − p)], p = 0.5
    expect(r.grad[2]![0]).toBeCloseTo(G.shaping.dLossDLogpOfToken3 * 0.5, 7);
    expect(r.grad[2]![1]).toBeCloseTo(-G.shaping.dLossDLogpOfToken3 * 0.5, 7);
    // token 4: −A·γρ/(ρ+γ)²·w = 2·0.1·0.25/0.35²·0.25 = 0.1020408; times [0.8, −0.8]
    expect(r.grad[3]![0]).toBeCloseTo(0.10204082 * 0.8, 6);
    // on-policy tokens 1 and 2 stay clipped
    for (const row of r.grad.slice(0, 2)) for (const x of row) expect(Math.abs(x)).toBeLessThan(1e-7);
  });
});
