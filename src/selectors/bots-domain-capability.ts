// BOTS's capability per domain (`capabilityBy: 'domain'`). One global capability c places every
// task at the same point between the weak and the strong reference; a learner that has mastered
// one skill (domain) and not yet begun another is at different points for each, and a global c
// then predicts solved tasks at ~p* and hopeless ones above 0. Each domain keeps its own smoothed
// estimate, from the same formula over that domain's observed tasks; a domain without one yet
// borrows the global c.
import type { ObservedBatch } from './base.ts';
import { DomainValues } from './domain-values.ts';

export interface CapabilitySettings {
  capabilityDiscount: number;
  capabilityGuard: number;
  capabilityMin: number;
  capabilityMax: number;
}

export class DomainCapability extends DomainValues {
  constructor() {
    super('domainCapability');
  }

  /** Task k's capability: its domain's estimate, or `fallback` (the global c) before there is one. */
  of(k: number, fallback: number): number {
    const v = this.values[this.codes[k]!]!;
    return Number.isNaN(v) ? fallback : v;
  }

  /** c_new = (mean r̄ − mean f0) / (mean f1 − mean f0) per domain over the batch's tasks with references. */
  update(batch: ObservedBatch, f0: Float64Array, delta: Float64Array, p: CapabilitySettings): void {
    const d = this.names.length;
    const sr = new Float64Array(d);
    const s0 = new Float64Array(d);
    const sd = new Float64Array(d);
    const cnt = new Int32Array(d);
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      if (Number.isNaN(f0[k]!)) continue;
      const g = this.codes[k]!;
      sr[g]! += batch.mean[i]!;
      s0[g]! += f0[k]!;
      sd[g]! += delta[k]!;
      cnt[g]!++;
    }
    for (let g = 0; g < d; g++) {
      // A domain whose references agree on these tasks says nothing about its capability.
      if (cnt[g] === 0 || Math.abs(sd[g]! / cnt[g]!) < p.capabilityGuard) continue;
      const cNew = Math.min(p.capabilityMax, Math.max(p.capabilityMin, (sr[g]! - s0[g]!) / sd[g]!));
      const old = this.values[g]!;
      this.values[g] = Number.isNaN(old)
        ? cNew
        : p.capabilityDiscount * old + (1 - p.capabilityDiscount) * cNew;
    }
  }
}
