import { WinnowError } from '../core/errors.ts';
import type { Experience, ExperienceInput } from '../core/experience.ts';
import type { Registry } from '../core/registry.ts';
import { RejectedStore } from '../store/rejected-store.ts';
import { type BufferParts, createBufferParts, resolveBufferParts } from './buffer-parts.ts';
import { type SampleParts, sampleExperiences } from './buffer-sample.ts';
import { ackLeases, recoverLeases, type SettleParts } from './buffer-settle.ts';
import { CapacityGuard } from './capacity-guard.ts';
import {
  type ExperienceBufferConfig,
  type ExperienceBufferConfigInput,
  parseBufferConfig,
} from './experience-config.ts';
import type {
  AckResult,
  BufferStats,
  RecoverResult,
  RowBookkeeping,
  SampleOptions,
  SampleResult,
  WriteResult,
} from './experience-results.ts';
import { ExperienceSlots } from './index/experience-slots.ts';
import { UseState } from './index/use-state.ts';
import { ReplayRatioLimiter } from './rate-limiter.ts';
import type { Remover, RemoverDefinition } from './removers/remover.ts';
import type { Sampler, SamplerDefinition } from './samplers/sampler.ts';
import type { CheckedWrite } from './storage/checked-write.ts';
import { CommitWindow } from './storage/commit-window.ts';
import { decodeExperiences } from './storage/experience-decode.ts';
import { loadIndex, type Reconciled } from './storage/experience-load.ts';
import { ExperienceStorage } from './storage/experience-storage.ts';
import { startGroupCommit } from './storage/group-commit.ts';
import { TableUpkeep } from './storage/table-upkeep.ts';
import {
  DEFAULT_MAX_QUEUED_ROWS,
  type QueuedWrite,
  type WriteBehindOptions,
} from './storage/write-behind.ts';
import { WriteGroups } from './storage/write-groups.ts';

export type * from './experience-results.ts';
export type { QueuedWrite, WriteBehindOptions };

/** Where sampler names are looked up (default: the built-ins; the config layer adds user modules). */
export interface OpenBufferOptions {
  samplers?: Registry<SamplerDefinition>;
  removers?: Registry<RemoverDefinition>;
}

/**
 * A durable experience buffer composed of parts: storage (a LanceDB table + use journal), a
 * sampler that owns its index, a remover for rows beyond `capacity`, and an optional rate limiter.
 *
 * Delivery guarantee — exactly-once with respect to trainer checkpoints:
 * - `write` returns after its commit; written rows are never lost and never duplicated (writes are idempotent
 *   on `id`, so a resumed explorer may re-write a step).
 * - `sample(n, { step })` commits a lease for every row it returns (the use journal) before it returns.
 *   Leased rows count as used for every sampler rule.
 * - `ack(step)` acknowledges every lease with a step ≤ `step`: call it once that step's checkpoint is durable.
 * - After a crash, `recover(t)` (t: the resumed checkpoint's step) acknowledges the leases ≤ t and rolls
 *   back those > t (those rows become deliverable again). Then every experience's use count equals the
 *   number of its deliveries at steps ≤ t: a delivery counts iff the training it fed survived in a checkpoint.
 */
export class ExperienceBuffer {
  readonly config: ExperienceBufferConfig;
  readonly sampler: Sampler;
  readonly remover: Remover;
  /** The table's samples-per-insert limiter (`config.rateLimiter`); its counts go in run checkpoints. */
  readonly rateLimiter: ReplayRatioLimiter | null;
  readonly storage: ExperienceStorage;
  readonly rejected: RejectedStore;
  /** The registries this buffer was opened with (buffers opened beside it use the same). */
  readonly options: OpenBufferOptions;
  /** Rows found on open that another writer appended (given fresh seqs or quarantined). */
  reconciled: Reconciled = { reseq: [], quarantined: [] };
  private readonly slots: ExperienceSlots;
  private readonly use: UseState;
  private readonly capacity: CapacityGuard;
  private readonly upkeep: TableUpkeep;
  /** The seq the next group numbered takes its first from (groups in flight took theirs). */
  private nextSeq = 0;
  /** One past the last seq indexed (what `stats().inserted` counts: rows of landed commits). */
  private indexedSeq = 0;
  /** The group commits in flight (write's appends run up to two side by side). */
  private readonly window = new CommitWindow();
  private callsAtStep = { step: Number.NaN, calls: 0 };
  private queue: Promise<unknown> = Promise.resolve();
  private readonly writes: WriteGroups;
  private closed = false;

  private constructor(
    config: ExperienceBufferConfig,
    slots: ExperienceSlots,
    sampler: Sampler,
    remover: Remover,
    storage: ExperienceStorage,
    rejected: RejectedStore,
    options: OpenBufferOptions,
  ) {
    this.config = config;
    this.options = options;
    this.slots = slots;
    this.sampler = sampler;
    this.remover = remover;
    this.storage = storage;
    this.rejected = rejected;
    this.rateLimiter = config.rateLimiter ? new ReplayRatioLimiter(config.rateLimiter) : null;
    this.writes = new WriteGroups({
      table: config.table,
      encode: (rows) => storage.encodeWrite(rows),
      enqueue: (job) => {
        const before = this.queue;
        this.serial(job, false, true).catch(() => undefined); // every call's own promise carries its outcome
        // Everything queued before has started; wait for its commits to land too.
        return before.then(() => this.window.drained());
      },
      room: (behind) => this.window.room(behind),
      commit: (calls, behind) => this.commitGroup(calls, behind),
    });
    const facts = (s: number) => slots.facts(s);
    this.use = new UseState(slots, sampler, facts);
    const use = this.use;
    this.capacity = new CapacityGuard({ ...config, slots, use, remover, storage, rejected });
    this.upkeep = new TableUpkeep({ config, slots, storage, use, sampler, facts });
  }

  /**
   * Open (or create) the buffer `config.table` in the database folder `dbDir`, rebuild its
   * in-memory index from the bookkeeping columns and replay its use journal. Leases left by a
   * crashed process stay pending until `recover` or `ack`.
   */
  static async open(
    dbDir: string | undefined,
    config: ExperienceBufferConfigInput = {},
    where: { path?: string; file?: string } = {},
    options: OpenBufferOptions = {},
  ): Promise<ExperienceBuffer> {
    const path = where.path ?? 'buffer';
    const cfg = parseBufferConfig(config, { path, file: where.file });
    const parts = resolveBufferParts(cfg, { path, file: where.file, ...options });
    return ExperienceBuffer.openParsed(dbDir, cfg, parts, options);
  }

  /**
   * `open` for a config already checked and parts already resolved (a run's door did both):
   * nothing is parsed again. A part without a remover gets the one its sampler names.
   */
  static async openParsed(
    dbDir: string | undefined,
    cfg: ExperienceBufferConfig,
    parts: BufferParts,
    options: OpenBufferOptions = {},
  ): Promise<ExperienceBuffer> {
    const slots = new ExperienceSlots();
    const { sampler, remover } = createBufferParts(parts, { seed: cfg.seed, keys: slots }, options.removers);
    const storage = await ExperienceStorage.open(dbDir, cfg.table, slots);
    const rejected = await RejectedStore.open(dbDir, cfg.rejectedTable);
    const buf = new ExperienceBuffer(cfg, slots, sampler, remover, storage, rejected, options);
    await buf.load();
    return buf;
  }

  /** The experience table. */
  get table() {
    return this.storage.table;
  }

  /** The use journal (`<table>_uses`). */
  get journal() {
    return this.storage.journal;
  }

  private async load(): Promise<void> {
    const loaded = await loadIndex(this.storage, this.slots, this.rejected, this.config.runId, {
      entropy: this.sampler.needsEntropy === true,
    });
    this.nextSeq = loaded.nextSeq;
    this.indexedSeq = loaded.nextSeq;
    this.use.lastAcked = loaded.lastAcked;
    this.reconciled = loaded.reconciled;
    this.use.reindex();
    // A crash between a write and its eviction can leave the table over capacity.
    const evicted = this.capacity.choose();
    if (evicted.length > 0) await this.capacity.evict(evicted);
  }

  /**
   * Run `fn` after every call queued before it; `checked`: first fail with a write-behind failure.
   * Every call but a group commit's start (`write`) also waits for the commits in flight to finish.
   */
  private serial<T>(fn: () => Promise<T>, checked = true, write = false): Promise<T> {
    if (this.closed) return Promise.reject(new WinnowError(`buffer '${this.config.table}' is closed`));
    const call = async () => {
      if (!write) await this.window.drained();
      if (checked) this.writes.behind.check();
      return fn();
    };
    const run = this.queue.then(call, call);
    this.queue = run.catch(() => undefined);
    // Writes called after this call must not join a group commit queued before it.
    this.writes.cut();
    return run;
  }

  // ---------------------------------------------------------------- write

  /**
   * Append experiences. Rows whose id the buffer already holds are skipped, so re-writing a step
   * after a crash adds nothing. Over capacity, the remover's order removes rows (`buffer:evict`).
   *
   * Group commit: calls made while an earlier call is being served are committed together, in
   * call order, as one LanceDB commit (a call made after a `sample`/`ack`/… stays behind it). The
   * promise of each call resolves only once the commit holding its rows has landed: a resolved
   * write is durable (docs/reliability.md, "When a write is durable"). A call's rows are checked
   * and encoded when it is made (beside the commit in flight): a call with a bad row fails at
   * once, alone. A failed commit fails every call in it, and none of their rows is in the index.
   */
  write(exps: readonly ExperienceInput[]): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new WinnowError(`buffer '${this.config.table}' is closed`));
    try {
      return this.writes.add(exps, false).committed;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Opt-in write-behind: check, encode and queue the rows like `write`, but resolve once they are
   * queued, not once committed. Calls made while a commit is in flight are committed together as the
   * next one, so a single caller's small calls coalesce into large commits. What is durable when
   * (docs/reliability.md, "When a write is durable"): a call's rows are durable once its `committed`
   * settles, or once any later `durable`, `sample`, `ack`, `recover`, `flush`, `compact` or `close`
   * returns (they run after every commit queued before them). Commits land in call order, each
   * atomically, so after a crash the table holds a prefix of the calls, never part of one. A failed
   * commit fails every later call on this buffer (write-behind.ts).
   */
  async writeBehind(exps: readonly ExperienceInput[], opts: WriteBehindOptions = {}): Promise<QueuedWrite> {
    if (this.closed) throw new WinnowError(`buffer '${this.config.table}' is closed`);
    const { committed, ahead } = this.writes.add(exps, true);
    if (this.writes.behind.waiting > (opts.maxQueuedRows ?? DEFAULT_MAX_QUEUED_ROWS)) await ahead;
    return { queued: exps.length, committed };
  }

  /** Resolves once every write made before it is committed (durable); throws a write-behind failure. */
  durable(): Promise<void> {
    return this.serial(async () => undefined);
  }

  /**
   * Start one commit for every call of a group (group-commit.ts), which settles each call's promise
   * once it has finished. Resolves once the append is on its way (write-behind: once finished).
   */
  private async commitGroup(calls: readonly CheckedWrite[], behind: boolean): Promise<void> {
    const w = this.window;
    // A row also in a group in flight: number it once that group has landed or failed.
    if (w.holdsAny(calls.map((c) => c.facts.ids))) await w.drained();
    const parts = { table: this.config.table, slots: this.slots, storage: this.storage, use: this.use };
    const more = { capacity: this.capacity, upkeep: this.upkeep, sampler: this.sampler };
    const firstSeq = this.nextSeq;
    const started = startGroupCommit(
      {
        ...parts,
        ...more,
        firstSeq,
        previous: w.previous,
        oldestFirstSeq: w.oldestFirstSeq(firstSeq),
        lastVersion: () => w.lastVersion,
        onIndexed: (rows, version) => {
          this.rateLimiter?.onInsert(rows);
          this.indexedSeq = firstSeq + rows;
          if (version > w.lastVersion) w.lastVersion = version;
        },
        // Unused seqs are given back when no later group took seqs after them.
        onFailed: (from, rows) => {
          if (this.nextSeq === from + rows) this.nextSeq = from;
        },
      },
      calls,
    );
    this.nextSeq += started.fresh;
    const finished = w.start({ ids: started.ids, firstSeq, behind }, started.finished);
    if (behind) await finished;
  }

  // ---------------------------------------------------------------- sample

  /**
   * Choose up to `n` experiences for train step `opts.step` and lease them (one journal commit).
   * Returns fewer when fewer are eligible (or, with `keepGroups`, when groups do not fit), and none
   * (with `blocked` set) while the rate limiter holds sampling back.
   */
  sample(n: number, opts: SampleOptions): Promise<SampleResult> {
    return this.serial(() => sampleExperiences(this.sampleParts, n, opts));
  }

  private get sampleParts(): SampleParts {
    const { config, slots, use, sampler, storage, rejected, rateLimiter, upkeep } = this;
    const callIndex = (step: number) => {
      if (this.callsAtStep.step !== step) this.callsAtStep = { step, calls: 0 };
      return this.callsAtStep.calls++;
    };
    return { config, slots, use, sampler, storage, rejected, rateLimiter, upkeep, callIndex };
  }

  // ---------------------------------------------------------------- ack / recover

  /**
   * Acknowledge every lease (and skip) with a step ≤ `step`: one journal commit. Call it once the
   * trainer's checkpoint covering `step` is durable; use counts are final from then on.
   */
  ack(step: number): Promise<AckResult> {
    return this.serial(() => ackLeases(this.settleParts, step));
  }

  /**
   * After a crash: the trainer resumes from its checkpoint of step `trainedThroughStep`. Leases up
   * to that step are acknowledged, later ones rolled back. `null` (no checkpoint) rolls back every
   * lease that was not acknowledged.
   */
  recover(trainedThroughStep: number | null): Promise<RecoverResult> {
    return this.serial(() =>
      recoverLeases(this.settleParts, trainedThroughStep, () => {
        this.callsAtStep = { step: Number.NaN, calls: 0 };
      }),
    );
  }

  private get settleParts(): SettleParts {
    const { slots, use, storage, upkeep } = this;
    return { table: this.config.table, slots, use, storage, upkeep };
  }

  // ---------------------------------------------------------------- fold / compact

  /** Write acknowledged use counts, priorities and consumption into the experience table now. */
  flush(): Promise<number> {
    return this.serial(() => this.upkeep.fold());
  }

  /** Fold, merge small fragments and drop old versions of both tables (automatic every `compactEvery` commits of a table). */
  compact(): Promise<void> {
    return this.serial(async () => {
      await this.upkeep.compact();
      await this.storage.journal.settle({ rethrow: true });
    });
  }

  /** Fold what is pending and stop accepting calls. */
  close(): Promise<void> {
    const done = this.serial(async () => {
      await this.upkeep.fold();
      await this.storage.journal.settle({ rethrow: true });
    }).finally(() => this.storage.stopUpkeep());
    this.closed = true;
    return done;
  }

  // ---------------------------------------------------------------- inspection

  get size(): number {
    return this.slots.live;
  }

  /** Background table upkeep (fold, compaction): whether a job runs now and how many finished. */
  get upkeepState(): { busy: boolean; completed: number } {
    return { busy: this.upkeep.busy, completed: this.upkeep.completed };
  }

  get lastAcknowledgedStep(): number {
    return this.use.lastAcked;
  }

  version(): Promise<number> {
    return this.storage.version();
  }

  stats(): BufferStats {
    return { ...this.use.stats(), inserted: this.indexedSeq };
  }

  /** Bookkeeping of every stored row in seq order (acknowledged + pending). */
  bookkeeping(): RowBookkeeping[] {
    return this.use.bookkeeping();
  }

  /** Read stored experiences (payload from the table, use counts as acknowledged so far). */
  async read(opts: { limit?: number } = {}): Promise<Experience[]> {
    let q = this.storage.table.query();
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    const rows = decodeExperiences(await q.toArrow()).sort((a, b) => a.seq - b.seq);
    return rows.map((r) => {
      const s = this.slots.idToSlot.get(r.exp.id);
      if (s === undefined || this.slots.seq[s] !== r.seq) return r.exp;
      const uses = this.slots.uses[s]!;
      return { ...r.exp, useCount: uses, priority: this.sampler.priority(this.slots.facts(s), uses) };
    });
  }
}
