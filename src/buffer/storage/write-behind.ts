import { WinnowError } from '../../core/errors.ts';
import type { WriteResult } from '../experience-results.ts';

/** What `ExperienceBuffer.writeBehind` returns once a call is checked, encoded and queued. */
export interface QueuedWrite {
  /** Rows the call queued (its duplicates are known only at commit: see `committed`). */
  queued: number;
  /**
   * Settles when the commit holding the call's rows lands (its rows are durable from then on), with
   * what a `write` of the same rows returns; rejects if that commit failed.
   */
  committed: Promise<WriteResult>;
}

export interface WriteBehindOptions {
  /**
   * Backpressure: while more rows than this wait for their commit, `writeBehind` resolves only once
   * the commit ahead of its own has landed (so at most about this many rows are ever held in memory).
   * Default 32,768: two full groups (write-groups.ts), one committing while the next forms; more
   * queued rows would only be held longer, not committed sooner.
   */
  maxQueuedRows?: number;
}

export const DEFAULT_MAX_QUEUED_ROWS = 32_768;

/**
 * The bookkeeping of opt-in write-behind (ExperienceBuffer.writeBehind): rows queued but not yet
 * committed, and the first failed commit. A write-behind caller may never look at `committed`, so a
 * failure is never left there alone: from then on every call on the buffer fails with it, and the
 * table holds exactly the calls made before the failed one (commits land in call order).
 */
export class WriteBehindState {
  private queuedRows = 0;
  private failure: Error | null = null;
  private readonly table: string;

  constructor(table: string) {
    this.table = table;
  }

  get waiting(): number {
    return this.queuedRows;
  }

  /** Count a queued call until its commit settles; a failure fails every later call. */
  track(rows: number, committed: Promise<WriteResult>): void {
    this.queuedRows += rows;
    committed.then(
      () => {
        this.queuedRows -= rows;
      },
      (err: unknown) => {
        this.queuedRows -= rows;
        this.fail(err);
      },
    );
  }

  /** Record a failed write-behind commit (the first one is kept). */
  fail(err: unknown): void {
    if (this.failure) return;
    const why = err instanceof Error ? err.message : String(err);
    this.failure = new WinnowError(
      `buffer '${this.table}': a write-behind commit failed, so this buffer accepts no more calls (${why}); reopen it: the table holds every write made before the failed one, in call order`,
    );
  }

  /** Throw the recorded failure, if any. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  get failed(): Error | null {
    return this.failure;
  }
}
