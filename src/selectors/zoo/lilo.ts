import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import { fillTo, ZooSelector } from './zoo-base.ts';

/**
 * LILO — learnability sampling (Foster & Foerster, 2025, "Learning to Reason at the Frontier of
 * Learnability", arXiv:2502.12272). A prompt's learnability is p·(1 − p), p its pass rate, largest
 * at p = 0.5. Here p is the mean reward of the prompt's latest group, and a batch is drawn by
 * rejection: a uniformly random candidate is accepted with probability p(1 − p) / 0.25 (never-tried
 * prompts with `unseenLearnability` / 0.25), so accepted prompts are distributed ∝ learnability.
 * Inferred: the latest group (not an average) estimates p, as the paper's buffer refreshes each
 * prompt's estimate when it is rolled out again; after `maxTries` rejections a slot takes its
 * last candidate, so a batch always fills.
 */
export const LiloParamsSchema = z.strictObject({
  unseenLearnability: z
    .number()
    .min(0)
    .max(0.25)
    .default(0.25)
    .describe('learnability assumed for never-tried prompts'),
  maxTries: z.number().int().min(1).default(256).describe('candidates per slot before the last one is taken'),
});
export type LiloParams = z.output<typeof LiloParamsSchema>;

export class LiloSelector extends ZooSelector {
  readonly type = 'lilo';
  private readonly p: LiloParams;
  /** Latest group mean reward per task; NaN = never tried. */
  private passRate = new Float64Array(0);

  constructor(seed: number, params: LiloParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.passRate = new Float64Array(view.ids.length).fill(Number.NaN);
  }

  /** Learnability p(1 − p) of a task as the selector sees it now. */
  learnability(taskId: string): number {
    const p = this.passRate[this.index.get(taskId) ?? -1];
    if (p === undefined) return Number.NaN;
    return Number.isNaN(p) ? this.p.unseenLearnability : p * (1 - p);
  }

  predict(taskIds: readonly string[]): Float64Array {
    return Float64Array.from(this.indicesOf(taskIds), (k) => (k < 0 ? Number.NaN : this.passRate[k]!));
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const want = Math.min(n, size);
    const taken = new Set<number>();
    const out: number[] = [];
    while (out.length < want) {
      let k = -1;
      for (let t = 0; t < this.p.maxTries; t++) {
        const c = this.rng.int(size);
        if (taken.has(c)) continue;
        k = c;
        const p = this.passRate[c]!;
        const l = Number.isNaN(p) ? this.p.unseenLearnability : p * (1 - p);
        if (this.rng.float() * 0.25 < l) break;
      }
      if (k < 0) for (let c = 0; c < size && k < 0; c++) if (!taken.has(c)) k = c;
      taken.add(k);
      out.push(k);
    }
    return fillTo(out, n);
  }

  protected override observe(batch: ObservedBatch): void {
    for (let i = 0; i < batch.size; i++) this.passRate[batch.idx[i]!] = batch.mean[i]!;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { passRate: encodeArray(this.passRate) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.passRate = decodeArray(data['passRate'], 'float64', 'lilo passRate', this.ids.length);
  }
}
