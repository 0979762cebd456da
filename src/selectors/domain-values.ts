// One number per task domain, kept by BOTS's per-domain estimates (domain capability and domain
// track): each task's domain code, the domain names in first-seen order, a value per domain (NaN
// until the domain is observed), grown as tasks arrive mid-run and saved with the selector state.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { decodeArray, encodeArray } from './state-codec.ts';
import { encodeDomains } from './task-view.ts';
import type { SelectorTaskView } from './types.ts';

export class DomainValues {
  protected codes = new Int32Array(0);
  protected names: string[] = [];
  protected values = new Float64Array(0);

  private readonly key: string;

  /** `key`: the state's key (`domainCapability`, `domainTrack`), named in load errors. */
  constructor(key: string) {
    this.key = key;
  }

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

  save(): JsonValue {
    return { names: this.names, values: encodeArray(this.values) };
  }

  load(data: unknown): void {
    const ok =
      typeof data === 'object' &&
      data !== null &&
      Array.isArray((data as { names?: unknown }).names) &&
      (data as { names: unknown[] }).names.every((x) => typeof x === 'string');
    if (!ok) throw new DataError({ message: `bots.load: state.data.${this.key} needs names and values` });
    const saved = data as { names: string[]; values: unknown };
    if (saved.names.join('\u0000') !== this.names.join('\u0000'))
      throw new DataError({ message: 'bots.load: the state was taken with different domains' });
    const label = `bots ${this.key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`;
    this.values = decodeArray(saved.values, 'float64', label, this.names.length);
  }
}
