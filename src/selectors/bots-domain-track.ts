// BOTS's domain track (`domainTrack`, opt-in): implicit evidence for tasks without reference
// columns. The paper's implicit evidence needs two reference models' pass rates per task; without
// them BOTS is explicit-only and has no information about a task before rolling it out, so on a
// pool where most tasks are solved or hopeless it must first try most of them. With a domain track,
// each domain keeps a smoothed pass rate of its observed groups,
//   t_d ← d·t_d + (1 − d)·(mean r̄ of the step's groups in domain d)   (the first taken as is),
// and a task without references gets implicit evidence (weight ρ) toward its domain's t_d — the
// same role as the reference track p̃ = f0 + c·Δ, with the domain standing in for the references.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import type { ObservedBatch } from './base.ts';
import { decodeArray, encodeArray } from './state-codec.ts';
import { encodeDomains } from './task-view.ts';
import type { SelectorTaskView } from './types.ts';

export class DomainTrack {
  private codes = new Int32Array(0);
  private names: string[] = [];
  private values = new Float64Array(0);
  private readonly discount: number;

  /** `discount` d: the share of the old rate kept per update. */
  constructor(discount: number) {
    this.discount = discount;
  }

  grow(domains: SelectorTaskView['domains'], count: number, offset: number): void {
    const enc = encodeDomains(domains, count, this.names);
    const codes = new Int32Array(offset + count);
    codes.set(this.codes.subarray(0, offset));
    codes.set(enc.codes, offset);
    this.codes = codes;
    this.names = enc.names;
    const values = new Float64Array(this.names.length).fill(Number.NaN);
    values.set(this.values);
    this.values = values;
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

  save(): JsonValue {
    return { names: this.names, values: encodeArray(this.values) };
  }

  load(data: unknown): void {
    const ok =
      typeof data === 'object' &&
      data !== null &&
      Array.isArray((data as { names?: unknown }).names) &&
      (data as { names: unknown[] }).names.every((x) => typeof x === 'string');
    if (!ok) throw new DataError({ message: 'bots.load: state.data.domainTrack needs names and values' });
    const saved = data as { names: string[]; values: unknown };
    if (saved.names.join('\u0000') !== this.names.join('\u0000'))
      throw new DataError({ message: 'bots.load: the state was taken with different domains' });
    this.values = decodeArray(saved.values, 'float64', 'bots domain track', this.names.length);
  }
}
