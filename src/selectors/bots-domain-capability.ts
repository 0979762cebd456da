// BOTS's capability per domain (`capabilityBy: 'domain'`). One global capability c places every
// task at the same point between the weak and the strong reference; a learner that has mastered
// one skill (domain) and not yet begun another is at different points for each, and a global c
// then predicts solved tasks at ~p* and hopeless ones above 0. Each domain keeps its own smoothed
// estimate, from the same formula over that domain's observed tasks; a domain without one yet
// borrows the global c.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import type { ObservedBatch } from './base.ts';
import { decodeArray, encodeArray } from './state-codec.ts';
import { encodeDomains } from './task-view.ts';
import type { SelectorTaskView } from './types.ts';

export interface CapabilitySettings {
  capabilityDiscount: number;
  capabilityGuard: number;
  capabilityMin: number;
  capabilityMax: number;
}

export class DomainCapability {
  private codes = new Int32Array(0);
  private names: string[] = [];
  private values = new Float64Array(0);

  /** Domain codes of the view's tasks, appended at `offset` (tasks added mid-run). */
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

  save(): JsonValue {
    return { names: this.names, values: encodeArray(this.values) };
  }

  load(data: unknown): void {
    const ok =
      typeof data === 'object' &&
      data !== null &&
      Array.isArray((data as { names?: unknown }).names) &&
      (data as { names: unknown[] }).names.every((x) => typeof x === 'string');
    if (!ok)
      throw new DataError({ message: 'bots.load: state.data.domainCapability needs names and values' });
    const saved = data as { names: string[]; values: unknown };
    if (saved.names.join('\u0000') !== this.names.join('\u0000'))
      throw new DataError({ message: 'bots.load: the state was taken with different domains' });
    this.values = decodeArray(saved.values, 'float64', 'bots domain capability', this.names.length);
  }
}
