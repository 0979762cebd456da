import type { Experience } from '../core/experience.ts';

/** What the experience buffer's calls take and return. */

export interface SampleOptions {
  /** The train step this batch is for: the lease key for `ack`/`recover`, and the clock for step cooldowns. */
  step: number;
  /** The trainer's current model version, for staleness (default: `step`). */
  modelVersion?: number;
  /** Skip (and record) experiences whose model version is below `modelVersion − maxStaleness`. */
  maxStaleness?: number;
  /** Wall clock in ms for second cooldowns (default `Date.now()`). */
  now?: number;
  /** The `step` recorded with skipped rows in the rejected table (default `sample:staleness`). */
  skipStepName?: string;
  /**
   * Which rows the sampler may choose from (default `any`): `fresh`, only rows never delivered
   * (use count 0, no pending lease); `past`, only rows delivered before (a replay-only batch, e.g.
   * an extra update on replayed rows after the fresh rows' own update). The sampler's rule is
   * unchanged; it sees only the rows of the pool as eligible.
   */
  pool?: 'any' | 'fresh' | 'past';
}

export interface SkippedExperience {
  id: string;
  modelVersion: number;
  reason: string;
}

export interface SampleResult {
  step: number;
  /** In delivery order. `useCount` counts this delivery; `priority` is the value it was chosen with. */
  experiences: Experience[];
  /** Importance weight per experience (1 unless the sampler samples by weight with β > 0). */
  weights: number[];
  /** Experiences skipped by this call (too stale), also recorded in the rejected table. */
  skipped: SkippedExperience[];
  requested: number;
  /** Set when the rate limiter held the sample back (nothing was drawn). */
  blocked?: string;
}

export interface EvictedExperience {
  id: string;
  seq: number;
  priority: number;
  useCount: number;
  reason: string;
}

export interface WriteResult {
  written: number;
  /** Ids not written because the buffer (or an earlier row of the same call) already had them. */
  duplicates: string[];
  evicted: EvictedExperience[];
  /**
   * A table version that holds the write's rows: the version after its commit (with two commits in
   * flight, possibly the later of the two).
   */
  version: number;
}

export interface AckResult {
  step: number;
  /** Deliveries and skips that became acknowledged. */
  acknowledged: number;
}

export interface RecoverResult {
  trainedThroughStep: number;
  acknowledged: number;
  rolledBack: number;
}

export interface BufferStats {
  /** Rows stored. */
  rows: number;
  /** Rows that can never be delivered again (used up or skipped). */
  retired: number;
  pendingLeases: number;
  /** Rows whose acknowledged use state is in the journal but not folded into the table yet. */
  unfolded: number;
  /** Experiences inserted over the table's life (the next seq). */
  inserted: number;
  /** Acknowledged deliveries of the rows stored now. */
  acknowledgedUses: number;
  lastAcknowledgedStep: number;
}

/** Per-row bookkeeping as the buffer sees it now (acknowledged + pending), for inspection and tests. */
export interface RowBookkeeping {
  id: string;
  seq: number;
  modelVersion: number;
  useCount: number;
  pending: number;
  lastUsedStep: number;
  consumed: boolean;
  priority: number;
}
