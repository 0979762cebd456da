import type { Experience } from '../../core/experience.ts';
import type { ExperienceSlots } from '../index/experience-slots.ts';
import type { UseState } from '../index/use-state.ts';
import type { RowFacts, Sampler } from '../samplers/sampler.ts';
import type { ExperienceStorage } from './experience-storage.ts';
import type { StoredExperience } from './experience-table.ts';

/**
 * Keeps the two tables small and the experience table's use columns current: folds acknowledged
 * use state into the table (one bulk rewrite), trims the journal, and compacts each table after
 * `compactEvery` of its own commits (merging fragments, dropping versions older than
 * `retainVersionsSeconds`).
 *
 * Automatic upkeep of a large table (≥ BACKGROUND_UPKEEP_ROWS rows) runs in the background: a fold of 1M rows or a compaction takes seconds, and a
 * `sample` or `write` must not wait for it. Folds and compactions are single commits that readers
 * and appenders can run beside (a take reads by stable row id, an append rebases onto them), so only
 * what could conflict waits for the background work (`idle`): deletes (eviction, rollback) and the
 * explicit `flush`/`compact`/`close`. The slot index is never renumbered while background work
 * runs, and it is renumbered only at a compaction point counted from the buffer's own commits, so
 * sampling stays the same whatever the background timing. A background failure leaves the table as
 * it was (a Lance commit is atomic): the rows it would have folded stay pending, and the next fold
 * (automatic, or the explicit one of `flush`/`compact`/`close`, which reports its own errors) writes them.
 */
/**
 * Below this many stored rows a fold or compaction takes milliseconds and runs inline (the table's
 * shape after each call is then fixed, as small test tables expect); from here on, in the background.
 */
export const BACKGROUND_UPKEEP_ROWS = 20_000;

/**
 * A small table's automatic compactions fold only every this many (a fold took 70–200 ms inline,
 * the RFT loop's slowest steps); still often enough to trim the use journal, whose entries a table
 * held under `foldRows` rows by its capacity would otherwise keep until `close`.
 */
export const SMALL_TABLE_FOLD_EVERY = 10;

export class TableUpkeep {
  private mainCommits = 0;
  /** Automatic compactions of a small table since its last fold. */
  private compactionsSinceFold = 0;
  private journalCommits = 0;
  private readonly config: { compactEvery: number; foldRows: number; retainVersionsSeconds: number };
  private readonly slots: ExperienceSlots;
  private readonly storage: ExperienceStorage;
  private readonly use: UseState;
  private readonly sampler: Sampler;
  private readonly facts: (slot: number) => RowFacts;
  private running: Promise<void> | null = null;
  /**
   * A background fold leaves the journal trim (a delete) to the next call made while no job runs:
   * a delete beside a sample's lease append would make one of them retry.
   */
  private trimDue = -1;
  /** The last background failure (kept for inspection; the work is redone by the next fold). */
  lastFailure: unknown = null;
  /** Background jobs finished so far (benchmarks read it). */
  completed = 0;

  constructor(parts: {
    config: { compactEvery: number; foldRows: number; retainVersionsSeconds: number };
    slots: ExperienceSlots;
    storage: ExperienceStorage;
    use: UseState;
    sampler: Sampler;
    facts: (slot: number) => RowFacts;
  }) {
    this.config = parts.config;
    this.slots = parts.slots;
    this.storage = parts.storage;
    this.use = parts.use;
    this.sampler = parts.sampler;
    this.facts = parts.facts;
  }

  /** Whether a background fold or compaction is running. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Wait for background upkeep (before anything that may conflict with it: deletes, renumbering). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Count commits; compact after `compactEvery` commits of the experience table, fold once
   * `foldRows` rows wait. The journal is tiny and compacts on its own schedule. A small table's
   * jobs run inline, a large table's in the background. A small table folds at every
   * SMALL_TABLE_FOLD_EVERY-th compaction only, a large one at none: there a fold rewrites rows of
   * the big compacted fragments, and the first reads after it rebuild Lance's row-id lookup for them
   * (seconds at 1M rows), whereas compacting only the small appended fragments leaves the big ones,
   * and the reads, alone. One job runs at a time; the call never waits for it.
   */
  async committed(main: number, journal: number): Promise<void> {
    this.mainCommits += main;
    this.journalCommits += journal;
    if (this.slots.live >= BACKGROUND_UPKEEP_ROWS) this.storage.warmUpkeep();
    if (!this.running && this.trimDue >= 0) await this.trimJournal(this.trimDue);
    if (this.journalCommits >= this.config.compactEvery) this.compactJournal();
    const compact = this.mainCommits >= this.config.compactEvery;
    if (compact) {
      this.mainCommits = 0;
      // Rare (removed rows outnumber live ones): renumber here, at a point fixed by the commit count.
      if (this.slots.wantsCompact()) {
        await this.idle();
        this.renumberSlots();
      }
    }
    if (this.running) return;
    if (!compact && this.slots.dirty.size < this.config.foldRows) return;
    const background = this.slots.live >= BACKGROUND_UPKEEP_ROWS;
    // Folded every `foldRows` rows and by flush/compact/close; the journal is the record until then.
    const small = !background && compact && ++this.compactionsSinceFold >= SMALL_TABLE_FOLD_EVERY;
    const fold = small || this.slots.dirty.size >= this.config.foldRows;
    const job = this.job(fold, compact, background).finally(() => {
      this.running = null;
      this.completed++;
    });
    this.running = job;
    if (!background) await job;
  }

  private async job(fold: boolean, compact: boolean, background: boolean): Promise<void> {
    try {
      if (fold) await this.foldNow(!background, background);
      if (compact) {
        await this.storage.optimize(this.cutoff(), { background });
        this.compactJournal();
      }
    } catch (err) {
      this.lastFailure = err;
    }
  }

  /** Write acknowledged use counts, priorities and consumption into the table now; returns the rows written. */
  async fold(): Promise<number> {
    await this.idle();
    if (this.trimDue >= 0) await this.trimJournal(this.trimDue);
    return this.foldNow(true);
  }

  /** Fold, compact the experience table and (in the background) the journal, in the foreground. */
  async compact(): Promise<void> {
    await this.fold();
    await this.storage.optimize(this.cutoff());
    this.mainCommits = 0;
    this.compactJournal();
    this.renumberSlots();
  }

  /**
   * One fold: the dirty rows' state as of now (later changes mark them dirty again), one merge
   * commit, then the journal entries it covers are trimmed. A failed merge puts the rows back.
   */
  private async foldNow(trim: boolean, background = false): Promise<number> {
    const sl = this.slots;
    const rows: StoredExperience[] = [];
    const taken: number[] = [];
    for (const s of sl.dirty) {
      if (!sl.alive[s]) continue;
      taken.push(s);
      rows.push({
        exp: { id: sl.ids[s]! } as Experience, // fold columns read only the id and the fields below
        seq: sl.seq[s]!,
        useCount: sl.uses[s]!,
        priority: this.sampler.priority(this.facts(s), sl.uses[s]!),
        lastUsedStep: sl.lastStep[s]!,
        lastUsedAt: sl.lastAt[s]!,
        consumed: sl.consumed[s] === 1,
      });
    }
    sl.dirty.clear();
    this.compactionsSinceFold = 0;
    const acked = this.use.lastAcked;
    if (rows.length > 0) {
      try {
        await this.storage.fold(rows, { background });
      } catch (err) {
        // Slots are not renumbered while a fold runs, so these are still the same rows.
        for (const s of taken) if (sl.alive[s]) sl.dirty.add(s);
        throw err;
      }
    }
    if (acked >= 0) {
      if (trim) await this.trimJournal(acked);
      else this.trimDue = acked;
    }
    return rows.length;
  }

  /** Drop the journal entries a fold wrote into the table (acknowledged through `step`). */
  private async trimJournal(step: number): Promise<void> {
    await this.storage.journal.trimThrough(step);
    if (this.trimDue <= step) this.trimDue = -1;
    this.journalCommits++;
  }

  /** Drop removed slots from the index once they outnumber the live ones (never while a job runs). */
  private renumberSlots(): void {
    if (this.slots.compact()) this.use.reindex();
  }

  /** In the background: a sample's lease commit never waits for the journal's compaction. */
  private compactJournal(): void {
    this.storage.journal.compactInBackground(this.cutoff());
    this.journalCommits = 0;
  }

  private cutoff(): Date {
    return new Date(Date.now() - this.config.retainVersionsSeconds * 1000);
  }
}
