import { z } from 'zod';

/**
 * The read-discipline contract. A discipline decides which stored experiences a `sample` call
 * returns and in what order; the buffer owns storage, bookkeeping and durability. A discipline is
 * pure: given the same rows, use counts, step and seed it picks the same experiences.
 */

/** How often and how soon an experience may be delivered again. */
export interface ReuseLimits {
  /** Deliveries per experience; `Infinity` = unlimited. Pending (unacknowledged) deliveries count. */
  maxUses: number;
  /** Train steps an experience sits out after each use: used at step t, eligible again at t + cooldownSteps + 1. */
  cooldownSteps: number;
  /** Seconds an experience sits out after each use (wall clock, `now` of the sample call). */
  cooldownSeconds: number;
}

/**
 * - `oldest` / `newest`: insertion order (FIFO / LIFO), deterministic;
 * - `highest`: highest `priority` first (ties: newest first), deterministic;
 * - `weighted`: random without replacement, P(i) ∝ weight(priority_i), with importance weights.
 */
export type SelectionMode = 'oldest' | 'newest' | 'highest' | 'weighted';

/** What a discipline may read about a row. */
export interface RowFacts {
  id: string;
  seq: number;
  modelVersion: number;
  advantage: number;
}

export interface ReadDiscipline {
  readonly name: string;
  readonly mode: SelectionMode;
  readonly limits: ReuseLimits;
  /** Which rows go first when the buffer is over capacity (after rows that can never be delivered again). */
  readonly eviction: 'lowest-priority' | 'oldest';
  /** Importance-sampling exponent β (weighted mode); 0 makes every weight 1. */
  readonly beta: number;
  /** The row's priority after `uses` deliveries; stored in the `priority` column. */
  priority(row: RowFacts, uses: number): number;
  /** Sampling weight from a priority (weighted mode only). */
  weight(priority: number): number;
}

export interface DisciplineContext {
  /** The buffer's seed: disciplines with noise derive per-row streams from it. */
  seed: number;
}

export interface DisciplineDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P, ctx: DisciplineContext): ReadDiscipline;
}

/** Keeps a definition's params type flowing into `create` without annotations. */
export function defineDiscipline<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: DisciplineContext): ReadDiscipline;
}): DisciplineDefinition<z.output<S>> {
  return def as DisciplineDefinition<z.output<S>>;
}

/** Reuse parameters shared by the replaying disciplines (priority, prioritized, uniform). */
export const ReuseParamsShape = {
  maxUses: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Deliveries per experience; null = unlimited.'),
  cooldownSteps: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('Train steps an experience sits out after each use.'),
  cooldownSeconds: z
    .number()
    .nonnegative()
    .default(0)
    .describe('Seconds an experience sits out after each use.'),
};

export function reuseLimits(p: {
  maxUses: number | null;
  cooldownSteps: number;
  cooldownSeconds: number;
}): ReuseLimits {
  return {
    maxUses: p.maxUses ?? Number.POSITIVE_INFINITY,
    cooldownSteps: p.cooldownSteps,
    cooldownSeconds: p.cooldownSeconds,
  };
}

/** Deliver once, no cooldown: the queue disciplines. */
export const ONCE: ReuseLimits = { maxUses: 1, cooldownSteps: 0, cooldownSeconds: 0 };
