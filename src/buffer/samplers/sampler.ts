import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Rng } from '../../core/rng.ts';
import type { EntryKeys } from './entry-order.ts';

/**
 * The sampler contract. A sampler decides which stored experiences a `sample` call returns and in
 * what order, and owns whatever index makes that fast (a heap, a sum tree, nothing for a queue).
 * The buffer owns storage, use bookkeeping and durability, and tells the sampler about every change
 * of a row through `update`. A sampler is deterministic: given the same rows, use counts, step and
 * seed it picks the same experiences.
 *
 * A new built-in sampler is one file with a `defineSampler({...})` and one entry in the list of
 * `samplerRegistry()` (samplers/registry.ts); a user's joins a run's registry (docs/buffer.md).
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

/** What a sampler may read about a row. */
export interface RowFacts {
  id: string;
  seq: number;
  modelVersion: number;
  advantage: number;
  reward: number;
  taskId: string;
  taskset: string;
  groupId: string;
  exploreStep: number;
  /**
   * Sequence entropy estimate: mean −log π_behaviour over the action tokens (src/buffer/index/sequence-stats.ts);
   * NaN without log-probs, and after a reopen unless the sampler sets `needsEntropy`.
   */
  entropy: number;
}

/**
 * The rows a sampler chooses from: one slot per stored row, in insertion (seq) order, with an
 * eligibility test that already applies use limits, cooldowns, pending leases and staleness.
 */
export interface CandidateView {
  /** Slots before `start` and from `end` on can never be delivered again (scan bounds). */
  start: number;
  end: number;
  seq: Float64Array;
  /** Each slot's priority as the sampler computed it (at its current use count). */
  priority: Float64Array;
  /** Group index per slot (rows of one GRPO group share it). */
  group: Int32Array;
  eligible(slot: number): boolean;
  facts(slot: number): RowFacts;
  /** Deliveries so far, acknowledged plus pending: 0 for a rollout never trained on (on-policy). */
  uses(slot: number): number;
  /** Every slot ever indexed is below `size`; `alive(slot)`: still stored (a rollout's history, e.g. a task's accuracy, counts rows that are no longer eligible). */
  size: number;
  alive(slot: number): boolean;
}

export interface Selection {
  /** Chosen slots in delivery order. */
  slots: number[];
  /** Importance weight per chosen slot (1 unless the sampler samples by weight with β > 0). */
  weights: number[];
}

export interface SelectOptions {
  /** Return whole GRPO groups (their eligible members), never part of one. */
  keepGroups: boolean;
  /** Seeded per (buffer seed, table, step, call): the only randomness a sampler may use. */
  rng: Rng;
  /** The train step the call samples for (the buffer always passes it; replay schedules read it). */
  step?: number;
}

export interface Sampler {
  readonly name: string;
  readonly limits: ReuseLimits;
  /** The remover used when the config names none (see src/buffer/removers/). */
  readonly remover: string;
  /** The row's priority after `uses` deliveries; stored in the `priority` column. */
  priority(row: RowFacts, uses: number): number;
  /**
   * Set when `priority` returns this one value for every row and use count (fifo, lifo, uniform):
   * the buffer then builds no per-row facts to ask it (a write indexes thousands of rows a call).
   */
  readonly fixedPriority?: number;
  /**
   * Set when `select` reads `facts(slot).entropy`: reopening the buffer then also reads the
   * `logprobs` and `action_mask` columns to rebuild it (other samplers skip that read).
   */
  readonly needsEntropy?: boolean;
  /** A row changed: it is deliverable with `priority`, or no longer (removed, used up, skipped). */
  update?(slot: number, deliverable: boolean, priority: number): void;
  /** Forget every row: slots were renumbered and every row is about to be `update`d again. */
  reset?(size: number): void;
  /** Choose up to `n` slots in delivery order. */
  select(view: CandidateView, n: number, opts: SelectOptions): Selection;
  /**
   * Adjust the delivered copies of a batch before they are returned (RePO recomputes the off-policy
   * rows' advantages): the table keeps its values. Rows are in delivery order, `useCount` set.
   */
  prepare?(batch: Experience[]): void;
}

export interface SamplerContext {
  /** The buffer's seed: samplers with noise derive per-row streams from it. */
  seed: number;
  /**
   * The buffer's per-slot keys, read live (the arrays are replaced when the index grows): for
   * indexes that compare slots, like the priority heap.
   */
  keys: { readonly priority: Float64Array } & EntryKeys;
}

export interface SamplerDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  /** camelCase keys with defaults; `buffer.sampler.params` is parsed with it. */
  readonly params: z.ZodType<P>;
  create(params: P, ctx: SamplerContext): Sampler;
}

/** Keeps a definition's params type flowing into `create` without annotations. */
export function defineSampler<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: SamplerContext): Sampler;
}): SamplerDefinition<z.output<S>> {
  return def as SamplerDefinition<z.output<S>>;
}

/** Reuse parameters shared by the replaying samplers (version_priority, advantage_priority, uniform). */
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

/** Deliver once, no cooldown: the queue samplers. */
export const ONCE: ReuseLimits = { maxUses: 1, cooldownSteps: 0, cooldownSeconds: 0 };
