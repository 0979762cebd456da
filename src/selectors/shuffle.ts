import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import { hashSeed, Rng } from '../core/rng.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector } from './base.ts';
import { defineSelector } from './definition.ts';
import { decodeArray, encodeArray } from './state-codec.ts';

/** Parity (0 even, 1 odd) of a permutation, from its cycle count. */
export function permutationParity(p: Int32Array): number {
  const seen = new Uint8Array(p.length);
  let cycles = 0;
  for (let i = 0; i < p.length; i++) {
    if (seen[i]) continue;
    cycles++;
    for (let j = i; !seen[j]; j = p[j]!) seen[j] = 1;
  }
  return (p.length - cycles) & 1;
}

/**
 * The visiting order of epoch `epoch` over `size` tasks: a permutation drawn from (seed, epoch)
 * alone, made even on even epochs and odd on odd ones (by swapping its first two entries when
 * needed). Two consecutive epochs therefore never share a permutation, by construction (size ≥ 2).
 */
export function epochPermutation(seed: number, epoch: number, size: number): Int32Array {
  const p = new Rng(hashSeed('shuffle-epoch', seed, epoch)).permutation(size);
  if (size >= 2 && permutationParity(p) !== (epoch & 1)) {
    const t = p[0]!;
    p[0] = p[1]!;
    p[1] = t;
  }
  return p;
}

/**
 * A fresh permutation of all tasks every epoch. A batch that crosses an epoch boundary never
 * repeats a task: an id of the new epoch already in the batch is deferred to the start of the next
 * batch, so every epoch still visits every task exactly once. Tasks added mid-run join at the next
 * epoch.
 */
export class ShuffleSelector extends BaseSelector {
  readonly type = 'shuffle';
  private epoch = 0;
  private cursor = 0;
  private perm: Int32Array = new Int32Array(0);
  /** Tasks of the current epoch deferred from the previous batch (emitted first). */
  private carry: number[] = [];

  get epochs(): number {
    return this.epoch;
  }

  protected override onInit(): void {
    this.perm = epochPermutation(this.seed, 0, this.ids.length);
  }

  protected pick(n: number): Int32Array {
    const distinct = n <= this.ids.length;
    const out: number[] = [];
    const inBatch = new Set<number>();
    const carried = this.carry.splice(0, n);
    for (const k of carried) {
      out.push(k);
      inBatch.add(k);
    }
    const deferred: number[] = [];
    while (out.length < n) {
      if (this.cursor >= this.perm.length) {
        this.epoch++;
        this.cursor = 0;
        this.perm = epochPermutation(this.seed, this.epoch, this.ids.length);
      }
      const k = this.perm[this.cursor++]!;
      if (distinct && inBatch.has(k)) {
        deferred.push(k);
        continue;
      }
      out.push(k);
      inBatch.add(k);
    }
    this.carry.push(...deferred);
    return Int32Array.from(out);
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      epoch: this.epoch,
      cursor: this.cursor,
      epochSize: this.perm.length,
      carry: encodeArray(Int32Array.from(this.carry)),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const { epoch, cursor, epochSize } = data;
    if (
      typeof epoch !== 'number' ||
      typeof cursor !== 'number' ||
      typeof epochSize !== 'number' ||
      epochSize > this.ids.length ||
      cursor < 0 ||
      cursor > epochSize
    )
      throw new DataError({ message: 'shuffle.load: state.data needs epoch, cursor ≤ epochSize ≤ tasks' });
    this.epoch = epoch;
    this.cursor = cursor;
    this.perm = epochPermutation(this.seed, epoch, epochSize);
    this.carry = Array.from(decodeArray(data['carry'], 'int32', 'shuffle carry'));
  }
}

/** `selector: shuffle` in a config: one file holds the selector and its definition. */
export const shuffleSelector = defineSelector({
  name: 'shuffle',
  description: 'a new seeded permutation every epoch (consecutive epochs always differ)',
  params: z.strictObject({}),
  create: (_p, { seed }) => new ShuffleSelector(seed),
});
