import { z } from 'zod';
import { BaseSelector } from './base.ts';
import { defineSelector } from './definition.ts';

/**
 * Uniformly random tasks, no repeats within a batch (when the batch is no larger than the task
 * set; a larger batch is whole random permutations followed by a distinct remainder).
 */
export class RandomSelector extends BaseSelector {
  readonly type = 'random';

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const out = new Int32Array(n);
    let at = 0;
    while (n - at >= size && size > 0 && n > size) {
      out.set(this.rng.permutation(size), at);
      at += size;
    }
    const rest = this.rng.sampleDistinct(size, n - at);
    for (const k of rest) out[at++] = k;
    return out;
  }
}

/** `selector: random` in a config: one file holds the selector and its definition. */
export const randomSelector = defineSelector({
  name: 'random',
  description: 'uniformly random tasks, no repeats within a batch',
  params: z.strictObject({}),
  create: (_p, { seed }) => new RandomSelector(seed),
});
