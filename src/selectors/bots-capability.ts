// BOTS's capability estimate: where the learner sits between the weak and the strong reference,
// from a step's observed tasks, c_new = (mean r̄ − mean f0) / (mean f1 − mean f0), clamped and
// smoothed; and adaptive ρ, which halves the weight of implicit evidence while its predictions miss.
import type { ObservedBatch } from './base.ts';
import type { DomainCapability } from './bots-domain-capability.ts';
import type { BotsParams } from './bots-params.ts';

export interface CapabilityState {
  f0: Float64Array;
  delta: Float64Array;
  /** The smoothed capability (NaN before the first usable step). */
  capability: number;
  rho: number;
  /** Per-domain capabilities (updated in place), or null. */
  domainCap: DomainCapability | null;
}

/** The capability and ρ after a step's batch; why either was left alone goes to `warnings`. */
export function updateCapability(
  batch: ObservedBatch,
  st: CapabilityState,
  p: BotsParams,
  warnings: string[],
): { capability: number; rho: number } {
  const { f0, delta } = st;
  let { capability, rho } = st;
  let sr = 0;
  let s0 = 0;
  let s1 = 0;
  let cnt = 0;
  for (let i = 0; i < batch.size; i++) {
    const k = batch.idx[i]!;
    if (Number.isNaN(f0[k]!)) continue;
    sr += batch.mean[i]!;
    s0 += f0[k]!;
    s1 += f0[k]! + delta[k]!;
    cnt++;
  }
  if (cnt === 0) return { capability, rho };
  const den = (s1 - s0) / cnt;
  if (Math.abs(den) < p.capabilityGuard) {
    warnings.push(
      `bots: capability not updated — the reference columns nearly agree on this step's tasks (mean f1 − mean f0 = ${den.toFixed(4)})`,
    );
  } else {
    let cNew = (sr / cnt - s0 / cnt) / den;
    if (cNew < p.capabilityMin) cNew = p.capabilityMin;
    else if (cNew > p.capabilityMax) cNew = p.capabilityMax;
    capability = Number.isNaN(capability)
      ? cNew
      : p.capabilityDiscount * capability + (1 - p.capabilityDiscount) * cNew;
  }
  st.domainCap?.update(batch, f0, delta, p);
  if (p.adaptiveRho && rho > p.adaptiveRhoMin && !Number.isNaN(capability)) {
    let err = 0;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      if (Number.isNaN(f0[k]!)) continue;
      const ck = st.domainCap ? st.domainCap.of(k, capability) : capability;
      const pt = Math.min(1, Math.max(0, f0[k]! + ck * delta[k]!));
      err += Math.abs(pt - batch.mean[i]!);
    }
    if (err / cnt >= p.adaptiveRhoThreshold) {
      rho = Math.max(p.adaptiveRhoMin, rho * p.adaptiveRhoFactor);
      warnings.push(
        `bots: implicit predictions missed by ${(err / cnt).toFixed(3)} on average; rho lowered to ${rho}`,
      );
    }
  }
  return { capability, rho };
}
