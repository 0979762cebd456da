// BOTS's domain track (`domainTrack`, opt-in): implicit evidence for tasks without reference
// columns. The paper's implicit evidence needs two reference models' pass rates per task; without
// them BOTS is explicit-only and has no information about a task before rolling it out, so on a
// pool where most tasks are solved or hopeless it must first try most of them. With a domain track,
// each domain keeps a smoothed pass rate of its observed groups,
//   t_d ← d·t_d + (1 − d)·(mean r̄ of the step's groups in domain d)   (the first taken as is),
// and a task without references gets implicit evidence (weight ρ) toward its domain's t_d — the
// same role as the reference track p̃ = f0 + c·Δ, with the domain standing in for the references.
import type { ObservedBatch } from './base.ts';
import { DomainValues } from './domain-values.ts';

export class DomainTrack extends DomainValues {
  private readonly discount: number;

  /** `discount` d: the share of the old rate kept per update. */
  constructor(discount: number) {
    super('domainTrack');
    this.discount = discount;
  }

  /** Task k's track: its domain's smoothed pass rate (NaN before the domain has been observed). */
  of(k: number): number {
    return this.values[this.codes[k]!]!;
  }

  /** Fold one update's groups in: each domain's mean r̄ over its groups, smoothed. */
  update(batch: ObservedBatch): void {
    const d = this.names.length;
    const sum = new Float64Array(d);
    const cnt = new Int32Array(d);
    for (let i = 0; i < batch.size; i++) {
      const g = this.codes[batch.idx[i]!]!;
      sum[g]! += batch.mean[i]!;
      cnt[g]!++;
    }
    for (let g = 0; g < d; g++) {
      if (cnt[g] === 0) continue;
      const now = sum[g]! / cnt[g]!;
      const old = this.values[g]!;
      this.values[g] = Number.isNaN(old) ? now : this.discount * old + (1 - this.discount) * now;
    }
  }
}
