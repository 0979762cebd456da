import type { z } from 'zod';

/**
 * The remover contract: which rows leave first when the buffer is over its `capacity`. The buffer
 * always removes rows that can never be delivered again first (oldest first) and never removes a
 * row that is leased to a train step not acknowledged yet; the remover orders the rest.
 */

/** What a remover may read about the rows (per-slot arrays, live). */
export interface RemoverView {
  seq: Float64Array;
  priority: Float64Array;
  modelVersion: Int32Array;
  uses: Int32Array;
}

export interface Remover {
  readonly name: string;
  /** Sort `candidates` (slots, in seq order) in place so the first to be removed comes first. */
  order(candidates: number[], rows: RemoverView): void;
  /** Why `slot` was removed, for the rejected table (after `capacity N: `). */
  reason(slot: number, rows: RemoverView): string;
}

export interface RemoverDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P): Remover;
}

export function defineRemover<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>): Remover;
}): RemoverDefinition<z.output<S>> {
  return def as RemoverDefinition<z.output<S>>;
}
