// Folding one feedback call into the shared-ability posterior: the learner drifts, then each group
// is a Laplace step on its binomial likelihood (assumed-density filtering), applied jointly to the
// shared part and the task's residual; trained-on tasks gain practice.
import type { ObservedBatch } from './base.ts';
import { type AbilityModel, sigmoid } from './shared-ability-model.ts';

export function observeBatch(model: AbilityModel, batch: ObservedBatch): void {
  widenForDrift(model);
  const P = model.dim;
  const scratch = { phi: new Float64Array(P), sphi: new Float64Array(P), mv: new Float64Array(2) };
  for (let i = 0; i < batch.size; i++)
    observeGroup(model, batch.idx[i]!, batch.sum[i]!, batch.count[i]!, scratch);
  // The learner trains on the groups with mixed rewards: those tasks gain one unit of practice.
  if (model.params.practiceEffect)
    for (let i = 0; i < batch.size; i++)
      if (batch.mixed[i]) {
        model.practiced[batch.idx[i]!]! += 1;
        model.syncSlot(batch.idx[i]!);
      }
  model.steps++;
}

/** The learner moved since the last step: widen the shared posterior. */
function widenForDrift(model: AbilityModel): void {
  const p = model.params;
  const P = model.dim;
  for (let j = 0; j < P; j++) {
    const q = j < model.xd ? p.weightDrift : j < model.dense ? p.practiceDrift : p.offsetDrift;
    model.cov[j * P + j]! += q;
  }
}

/** The posterior mode of η under N(m0, s0) × Binomial(successes | trials, σ(η)) (Newton steps). */
function laplaceMode(m0: number, s0: number, successes: number, trials: number): number {
  let eta = m0;
  for (let it = 0; it < 20; it++) {
    const q = sigmoid(eta);
    const grad = -(eta - m0) / s0 + successes - trials * q;
    const hess = 1 / s0 + trials * q * (1 - q);
    let step = grad / hess;
    if (step > 2) step = 2;
    else if (step < -2) step = -2;
    eta += step;
    if (Math.abs(step) < 1e-10) break;
  }
  return eta;
}

interface Scratch {
  phi: Float64Array;
  sphi: Float64Array;
  mv: Float64Array;
}

/** One group of task k: `successes` out of `trials`. */
function observeGroup(model: AbilityModel, k: number, successes: number, trials: number, s: Scratch): void {
  const p = model.params;
  const P = model.dim;
  const { phi, sphi, mv } = s;
  const firstTime = model.seen[k]! < 0;
  model.moments(k, mv, phi);
  const m0 = mv[0]!;
  const s0 = mv[1]!;
  const rv = model.residualVariance(k);
  const rm = model.rMean[k]!;
  const eta = laplaceMode(m0, s0, successes, trials);
  const q = sigmoid(eta);
  const info = Math.max(trials * q * (1 - q), 1e-12);
  // The Gaussian observation z ~ N(η, 1/info) that gives the same posterior mode and curvature.
  const R = 1 / info;
  const z = R * (eta * (1 / s0 + info) - m0 / s0);
  const innov = z - m0;
  const S = s0 + R;
  // Joint update of the shared part and this task's residual; their cross-covariance is dropped.
  const cov = model.cov;
  for (let a = 0; a < P; a++) {
    let acc = 0;
    for (let b = 0; b < P; b++) acc += cov[a * P + b]! * phi[b]!;
    sphi[a] = acc;
  }
  for (let a = 0; a < P; a++) {
    model.mu[a]! += (sphi[a]! / S) * innov;
    for (let b = 0; b < P; b++) cov[a * P + b]! -= (sphi[a]! * sphi[b]!) / S;
  }
  const r1 = rm + (rv / S) * innov;
  const v1 = rv - (rv * rv) / S;
  model.rMean[k] = r1;
  model.rVar[k] = v1;
  model.seen[k] = model.steps;
  if (firstTime) model.markObserved(k);
  model.syncSlot(k);
  if (firstTime && p.learnResidualSd) {
    // Online EM for the residual prior: its variance tracks the posterior second moment.
    const lr = p.learningRate;
    model.residualVar = Math.min(16, Math.max(0.01, (1 - lr) * model.residualVar + lr * (r1 * r1 + v1)));
  }
}
