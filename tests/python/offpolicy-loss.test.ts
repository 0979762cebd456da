import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/tiny/backend.ts';
import { type OffPolicyMode, policyGradientLoss } from '../../src/tiny/pg-loss.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { pythonBin, pythonHas } from '../helpers/python.ts';

/**
 * The Python reference trainer's loss (examples/trainers/offpolicy_loss.py, used by
 * torch_trainer.py) on the golden batch of tests/tiny/offpolicy-golden.json equals the built-in
 * trainer's (src/tiny/pg-loss.ts): loss and d loss / d logp per token, under both corrections.
 * Skipped with a note where python3 cannot import torch.
 */
const GOLDEN = join(REPO_ROOT, 'tests', 'tiny', 'offpolicy-golden.json');
const G = JSON.parse(readFileSync(GOLDEN, 'utf8')) as {
  p: number[];
  oldP: number[];
  advantage: number[];
  offPolicy: number[];
  weight: number[];
  clipLow: number;
  clipHigh: number;
  shapingGamma: number;
};
const hasTorch = pythonBin() !== null && pythonHas('torch');
if (!hasTorch)
  console.warn(
    'offpolicy-loss: skipped — python3 cannot import torch (pip install torch, or scripts/test-python-deps.sh)',
  );

const PY = `
import json, math, sys, torch
sys.path.insert(0, sys.argv[1])
from offpolicy_loss import pg_token_loss
g = json.load(open(sys.argv[2]))
out = {}
for mode in ("clip", "shaping"):
    logp = torch.tensor([math.log(p) for p in g["p"]], dtype=torch.float64, requires_grad=True)
    old = torch.tensor([math.log(p) for p in g["oldP"]], dtype=torch.float64)
    adv = torch.tensor(g["advantage"], dtype=torch.float64)
    w = torch.tensor(g["weight"], dtype=torch.float64)
    pg, _, _ = pg_token_loss(logp, old, adv, torch.tensor(g["offPolicy"]), g["clipLow"], g["clipHigh"], mode, g["shapingGamma"])
    loss = (pg * w).sum()
    loss.backward()
    out[mode] = {"loss": float(loss.detach()), "grad": [float(x) for x in logp.grad]}
print(json.dumps(out))
`;

beforeAll(async () => {
  await selectBackend();
});

/** The built-in loss and its gradient with respect to each token's log-prob (through the logits). */
function builtIn(mode: OffPolicyMode): { loss: number; grad: number[] } {
  const logits = tf.variable(tf.tensor2d(G.p.map((p) => [Math.log(p), Math.log(1 - p)])));
  const { value, grads } = tf.variableGrads(
    () =>
      policyGradientLoss(
        logits as unknown as tf.Tensor2D,
        {
          targets: tf.oneHot(tf.tensor1d([0, 0, 0, 0], 'int32'), 2) as tf.Tensor2D,
          oldLogprob: tf.tensor1d(G.oldP.map(Math.log)),
          advantage: tf.tensor1d(G.advantage),
          weight: tf.tensor1d(G.weight),
          offPolicy: tf.tensor1d(G.offPolicy),
        },
        {
          clipLow: G.clipLow,
          clipHigh: G.clipHigh,
          klCoef: 0,
          entropyCoef: 0,
          offPolicyMode: mode,
          shapingGamma: G.shapingGamma,
        },
      ).loss,
    [logits],
  );
  // d loss/d logit_0 = d loss/d logp · (1 − p) for target 0 with two classes.
  const g = grads[logits.name]!.arraySync() as number[][];
  return { loss: value.dataSync()[0]!, grad: g.map((row, i) => row[0]! / (1 - G.p[i]!)) };
}

describe.skipIf(!hasTorch)('Python reference trainer: same off-policy loss on the same batch', () => {
  it('offpolicy_loss.py (torch_trainer.py) matches src/tiny/pg-loss.ts under clip and shaping', () => {
    const r = spawnSync(pythonBin()!, ['-c', PY, join(REPO_ROOT, 'examples', 'trainers'), GOLDEN], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const py = JSON.parse(r.stdout) as Record<OffPolicyMode, { loss: number; grad: number[] }>;
    for (const mode of ['clip', 'shaping'] as const) {
      const ts = builtIn(mode);
      expect(py[mode].loss).toBeCloseTo(ts.loss, 6);
      py[mode].grad.forEach((x, i) => {
        expect(x).toBeCloseTo(ts.grad[i]!, 6);
      });
    }
    expect(py.shaping.loss).toBeCloseTo(0.4 / 21, 12); // (−1.2 + 0.8 − 2/2.1 + 2·0.25/0.35) / 4
    expect(py.shaping.grad[2]).toBeCloseTo(-0.011337868480725623, 12);
    expect(py.clip.grad).toEqual([0, 0, 0, 0]);
  });
});
