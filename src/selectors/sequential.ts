import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector } from './base.ts';
import { defineSelector } from './definition.ts';

/**
 * Tasks in their given order, wrapping around at the end (each pass is an epoch). Tasks added
 * mid-run are appended, so the current pass reaches them before it wraps.
 */
export class SequentialSelector extends BaseSelector {
  readonly type = 'sequential';
  private cursor = 0;
  private epoch = 0;

  /** Epochs completed so far. */
  get epochs(): number {
    return this.epoch;
  }

  protected pick(n: number): Int32Array {
    const out = new Int32Array(n);
    const size = this.ids.length;
    for (let i = 0; i < n; i++) {
      out[i] = this.cursor++;
      if (this.cursor >= size) {
        this.cursor = 0;
        this.epoch++;
      }
    }
    return out;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { cursor: this.cursor, epoch: this.epoch };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const { cursor, epoch } = data;
    if (
      typeof cursor !== 'number' ||
      typeof epoch !== 'number' ||
      cursor < 0 ||
      cursor >= Math.max(1, this.size)
    )
      throw new DataError({
        message: 'sequential.load: state.data needs cursor (a task position) and epoch',
      });
    this.cursor = cursor;
    this.epoch = epoch;
  }
}

/** `selector: sequential` in a config: one file holds the selector and its definition. */
export const sequentialSelector = defineSelector({
  name: 'sequential',
  description: 'tasks in their given order, wrapping around across epochs',
  params: z.strictObject({}),
  create: (_p, { seed }) => new SequentialSelector(seed),
});
