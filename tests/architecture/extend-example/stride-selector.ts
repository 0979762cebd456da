import { z } from 'zod';
import type { JsonValue } from '../../../src/core/task.ts';
import { BaseSelector } from '../../../src/selectors/base.ts';
import { defineSelector } from '../../../src/selectors/definition.ts';

/** Every `stride`-th task in the given order, wrapping around (0, k, 2k, …, then 1, k+1, …). */
export class StrideSelector extends BaseSelector {
  readonly type = 'stride';
  private readonly stride: number;
  private visit = 0;

  constructor(seed: number, stride: number) {
    super(seed);
    this.stride = stride;
  }

  protected pick(n: number): Int32Array {
    const out = new Int32Array(n);
    const rounds = Math.ceil(this.size / this.stride);
    for (let i = 0; i < n; i++) {
      let at = -1;
      while (at < 0 || at >= this.size) {
        const v = this.visit++ % (rounds * this.stride);
        at = (v % rounds) * this.stride + Math.floor(v / rounds);
      }
      out[i] = at;
    }
    return out;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { visit: this.visit };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.visit = Number(data.visit);
  }
}

export const strideSelector = defineSelector({
  name: 'stride',
  description: 'every stride-th task in the given order, wrapping around',
  params: z.strictObject({ stride: z.number().int().min(1).default(2) }),
  create: (p, { seed }) => new StrideSelector(seed, p.stride),
});
