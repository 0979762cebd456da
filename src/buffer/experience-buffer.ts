import type { Connection, Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { parseConfig } from '../core/config.ts';
import { DataError, WinnowError } from '../core/errors.ts';
import type { Experience, ExperienceInput } from '../core/experience.ts';
import type { RejectedInput } from '../core/rejected.ts';
import { hashSeed, Rng } from '../core/rng.ts';
import { connect, openListedTable } from './connection.ts';
import { encodeRowsFast } from './experience-arrow.ts';
import { checkExperience } from './experience-check.ts';
import {
  type ExperienceBufferConfig,
  type ExperienceBufferConfigInput,
  ExperienceBufferConfigSchema,
} from './experience-config.ts';
import { type JournalEntry, UseJournal } from './experience-journal.ts';
import { ExperienceSlots, type Lease } from './experience-slots.ts';
import {
  BOOKKEEPING_COLUMNS,
  decodeExperiences,
  decodePayloads,
  EXPERIENCE_SCHEMA,
  encodeExperiences,
  FOLD_COLUMNS,
  payloadColumns,
  payloadFlags,
  type RowIdentity,
  type StoredExperience,
} from './experience-table.ts';
import { RejectedStore } from './rejected-store.ts';
import type { ReadDiscipline, RowFacts } from './replay/discipline.ts';
import { PriorityHeap } from './replay/priority-heap.ts';
import { createDiscipline } from './replay/registry.ts';
import { type CandidateView, selectSlots } from './replay/select.ts';
import { SumTree } from './replay/sum-tree.ts';

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
  /** Importance weight per experience (1 unless the discipline samples by weight with β > 0). */
  weights: number[];
  /** Experiences skipped by this call (too stale), also recorded in the rejected table. */
  skipped: SkippedExperience[];
  requested: number;
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
  /** Table version after the write's commit. */
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

const STABLE_ROW_IDS_KEY = 'winnow:stable_row_ids';
const REQUIRED_COLUMNS = EXPERIENCE_SCHEMA.fields.map((f) => f.name);

/**
 * A durable experience buffer on a LanceDB table, read through a pluggable discipline.
 *
 * Delivery guarantee — exactly-once with respect to trainer checkpoints:
 * - `write` returns after its commit; written rows are never lost and never duplicated (writes are
 *   idempotent on `id`, so a resumed explorer may re-write a step).
 * - `sample(n, { step })` commits a lease for every row it returns (the use journal) before it
 *   returns. Leased rows count as used for every discipline rule.
 * - `ack(step)` acknowledges every lease with a step ≤ `step`. Call it after the trainer's
 *   checkpoint for that step is durable.
 * - After a crash, `recover(t)` with the step `t` of the checkpoint being resumed acknowledges the
 *   leases ≤ t and rolls back those > t (those rows become deliverable again).
 * Then every experience's use count equals the number of its deliveries at steps ≤ t: a delivery
 * counts iff the training it fed survived in a checkpoint.
 */
export class ExperienceBuffer {
  readonly config: ExperienceBufferConfig;
  readonly discipline: ReadDiscipline;
  readonly table: Table;
  readonly journal: UseJournal;
  readonly rejected: RejectedStore;
  private readonly slots = new ExperienceSlots();
  /** Deliverable rows by rank (mode 'highest') or by sampling weight (mode 'weighted'). */
  private readonly heap: PriorityHeap | null;
  private readonly tree: SumTree | null;
  /** Not-retired rows by model version, visited by staleness control. */
  private readonly byVersion = new Map<number, number[]>();
  private readonly stableRowIds: boolean;
  private nextSeq = 0;
  private nextRowId = 0;
  /** Whether a write since open confirmed the row-id prediction (see `checkPredictedRowIds`). */
  private rowIdsChecked = false;
  private lastAcked = -1;
  private scanStart = 0;
  private scanEnd = 0;
  /** Commits since each table was last compacted (the experience table, the journal). */
  private mainCommits = 0;
  private journalCommits = 0;
  private callsAtStep = { step: Number.NaN, calls: 0 };
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    config: ExperienceBufferConfig,
    discipline: ReadDiscipline,
    table: Table,
    journal: UseJournal,
    rejected: RejectedStore,
    stableRowIds: boolean,
  ) {
    this.config = config;
    this.discipline = discipline;
    this.table = table;
    this.journal = journal;
    this.rejected = rejected;
    this.stableRowIds = stableRowIds;
    this.heap = discipline.mode === 'highest' ? new PriorityHeap(this.slots) : null;
    this.tree = discipline.mode === 'weighted' ? new SumTree() : null;
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
  ): Promise<ExperienceBuffer> {
    const path = where.path ?? 'buffer';
    const cfg = parseConfig(ExperienceBufferConfigSchema, config, {
      path,
      ...(where.file ? { file: where.file } : {}),
    });
    const discipline = createDiscipline(cfg.discipline, cfg.params, { seed: cfg.seed }, path, where.file);
    const conn = await connect(dbDir);
    const { table, stable } = await openExperienceTable(conn, cfg.table);
    const journal = await UseJournal.open(conn, `${cfg.table}_uses`);
    const rejected = await RejectedStore.open(dbDir, cfg.rejectedTable);
    const buf = new ExperienceBuffer(cfg, discipline, table, journal, rejected, stable);
    await buf.load();
    return buf;
  }

  // ---------------------------------------------------------------- loading

  private async load(): Promise<void> {
    const t = await this.table
      .query()
      .select([...BOOKKEEPING_COLUMNS])
      .withRowId()
      .toArrow();
    const n = t.numRows;
    const num = (name: string): ArrayLike<number> => {
      const v = t.getChild(name);
      if (!v) return new Float64Array(n);
      const a = v.toArray() as ArrayLike<number | bigint>;
      return typeof a[0] === 'bigint' ? Array.from(a as ArrayLike<bigint>, Number) : (a as ArrayLike<number>);
    };
    const seq = num('seq');
    const rowId = num('_rowid');
    const mv = num('model_version');
    const adv = num('advantage');
    const created = num('created_at');
    const runIndex = num('run_index');
    const stepIndex = num('step_index');
    const exploreStep = num('explore_step');
    const promptLength = num('prompt_length');
    const reward = num('reward');
    const uses = num('use_count');
    const lastStep = num('last_used_step');
    const lastAt = num('last_used_at');
    const payload = num('payload_flags');
    const str = (name: string) => t.getChild(name);
    const idVec = str('id');
    const taskVec = str('task_id');
    const tasksetVec = str('taskset');
    const groupVec = str('group_id');
    const consumedVec = str('consumed');
    const truncatedVec = str('truncated');
    const expertVec = str('expert');
    const order = Array.from({ length: n }, (_, i) => i);
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if (seq[i - 1]! > seq[i]!) sorted = false;
    if (!sorted) order.sort((a, b) => seq[a]! - seq[b]!);
    for (const i of order) {
      this.slots.append({
        id: String(idVec?.get(i)),
        seq: seq[i]!,
        rowId: this.stableRowIds ? rowId[i]! : -1,
        groupId: String(groupVec?.get(i)),
        modelVersion: mv[i]!,
        advantage: adv[i]!,
        createdAt: created[i]!,
        taskId: String(taskVec?.get(i)),
        taskset: String(tasksetVec?.get(i)),
        runIndex: runIndex[i]!,
        stepIndex: stepIndex[i]!,
        exploreStep: exploreStep[i]!,
        promptLength: promptLength[i]!,
        reward: reward[i]!,
        truncated: Boolean(truncatedVec?.get(i)),
        expert: Boolean(expertVec?.get(i)),
        payload: payload[i]!,
        uses: uses[i]!,
        lastStep: lastStep[i]!,
        lastAt: lastAt[i]!,
        consumed: Boolean(consumedVec?.get(i)),
      });
      if (seq[i]! >= this.nextSeq) this.nextSeq = seq[i]! + 1;
      if (rowId[i]! >= this.nextRowId) this.nextRowId = rowId[i]! + 1;
    }
    for (let s = 0; s < this.slots.size; s++)
      this.lastAcked = Math.max(this.lastAcked, this.slots.lastStep[s]!);
    await this.replayJournal();
    this.reindex();
    // A crash between a write and its eviction can leave the table over capacity.
    const evicted = this.chooseEvictions();
    if (evicted.length > 0) await this.evict(evicted);
  }

  private async replayJournal(): Promise<void> {
    const entries = await this.journal.readAll();
    for (const e of entries) if (e.kind === 'ack') this.lastAcked = Math.max(this.lastAcked, e.step);
    entries.sort((a, b) => a.step - b.step || a.seq - b.seq);
    for (const e of entries) {
      if (e.kind === 'ack') continue;
      const slot = this.slots.slotOfSeq(e.seq);
      if (slot < 0) continue; // evicted since
      const lease: Lease = { step: e.step, at: e.at, kind: e.kind };
      // Entries at or below the row's folded watermark are already in its columns.
      if (e.kind === 'use' && e.step <= this.slots.lastStep[slot]!) continue;
      if (e.kind === 'skip' && this.slots.consumed[slot]) continue;
      if (e.step <= this.lastAcked) this.slots.acknowledge(slot, lease);
      else this.slots.addLease(slot, lease);
    }
  }

  // ---------------------------------------------------------------- helpers

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new WinnowError(`buffer '${this.config.table}' is closed`));
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private facts(s: number): RowFacts {
    return {
      id: this.slots.ids[s]!,
      seq: this.slots.seq[s]!,
      modelVersion: this.slots.modelVersion[s]!,
      advantage: this.slots.advantage[s]!,
    };
  }

  /**
   * Recompute a slot's effective priority, retire it once its acknowledged uses reach the limit, and
   * keep the heap / sum tree in step (retired rows leave them).
   */
  private refresh(s: number): void {
    const sl = this.slots;
    if (sl.alive[s] && !sl.consumed[s] && sl.uses[s]! >= this.discipline.limits.maxUses) {
      sl.consumed[s] = 1;
      sl.dirty.add(s);
    }
    sl.priority[s] = this.discipline.priority(this.facts(s), sl.effectiveUses(s));
    const gone = this.retired(s);
    if (this.heap) {
      if (gone) this.heap.remove(s);
      else this.heap.upsert(s);
    }
    if (this.tree) this.tree.set(s, gone ? 0 : this.discipline.weight(sl.priority[s]!));
  }

  /** Rebuild every derived index (after load and after slot compaction renumbered the slots). */
  private reindex(): void {
    const sl = this.slots;
    this.heap?.clear();
    this.tree?.reset(sl.size, () => 0);
    this.byVersion.clear();
    for (let s = 0; s < sl.size; s++) {
      this.refresh(s);
      if (!this.retired(s)) this.addToVersion(s);
    }
    this.scanStart = 0;
    this.scanEnd = sl.size;
  }

  private addToVersion(s: number): void {
    const v = this.slots.modelVersion[s]!;
    let list = this.byVersion.get(v);
    if (!list) {
      list = [];
      this.byVersion.set(v, list);
    }
    list.push(s);
  }

  private removeSlot(s: number): void {
    this.slots.remove(s);
    this.heap?.remove(s);
    this.tree?.set(s, 0);
  }

  /** Never deliverable again (whatever the step): removed, skipped, or used up (acknowledged). */
  private retired(s: number): boolean {
    const sl = this.slots;
    return !sl.alive[s] || sl.consumed[s] === 1 || sl.uses[s]! >= this.discipline.limits.maxUses;
  }

  /**
   * Count commits and compact each table after `compactEvery` of its own. Compacting the experience
   * table folds first (a fold is one bulk rewrite, so it rides along with the one compaction
   * rewrites anyway); the journal is tiny and compacts on its own schedule.
   */
  private async committed(main: number, journal: number): Promise<void> {
    this.mainCommits += main;
    this.journalCommits += journal;
    if (this.mainCommits >= this.config.compactEvery) await this.compactNow();
    else {
      if (this.slots.dirty.size >= this.config.foldRows) await this.foldNow();
      if (this.journalCommits >= this.config.compactEvery) await this.compactJournal();
    }
  }

  // ---------------------------------------------------------------- write

  /**
   * Append experiences in one commit (callers batch a whole explorer step). Rows whose id the
   * buffer already holds are skipped, so re-writing a step after a crash adds nothing. Over
   * capacity, the discipline's eviction order removes rows (recorded as `buffer:evict`).
   */
  write(exps: readonly ExperienceInput[]): Promise<WriteResult> {
    return this.serial(async () => {
      const duplicates: string[] = [];
      const fresh: StoredExperience[] = [];
      const seen = new Set<string>();
      exps.forEach((raw, i) => {
        const exp = checkExperience(raw, i, `buffer '${this.config.table}' write`);
        if (this.slots.idToSlot.has(exp.id) || seen.has(exp.id)) {
          duplicates.push(exp.id);
          return;
        }
        seen.add(exp.id);
        const seq = this.nextSeq + fresh.length;
        const stored: StoredExperience = {
          exp,
          seq,
          useCount: 0,
          priority: 0,
          lastUsedStep: -1,
          lastUsedAt: 0,
          consumed: false,
        };
        stored.priority = this.discipline.priority(
          { id: exp.id, seq, modelVersion: exp.modelVersion, advantage: exp.advantage },
          0,
        );
        stored.exp = { ...exp, useCount: 0, priority: stored.priority };
        fresh.push(stored);
      });
      if (fresh.length === 0)
        return { written: 0, duplicates, evicted: [], version: await this.table.version() };
      const res = await this.table.add(encodeExperiences(fresh));
      for (const r of fresh) {
        const s = this.slots.append({
          id: r.exp.id,
          seq: r.seq,
          // Predicted (see `checkPredictedRowIds`).
          rowId: this.stableRowIds ? this.nextRowId++ : -1,
          groupId: r.exp.groupId,
          modelVersion: r.exp.modelVersion,
          advantage: r.exp.advantage,
          createdAt: r.exp.createdAt,
          taskId: r.exp.taskId,
          taskset: r.exp.taskset,
          runIndex: r.exp.runIndex,
          stepIndex: r.exp.stepIndex,
          exploreStep: r.exp.exploreStep,
          promptLength: r.exp.promptLength,
          reward: r.exp.reward,
          truncated: r.exp.truncated,
          expert: r.exp.expert,
          payload: payloadFlags(r.exp),
          uses: 0,
          lastStep: -1,
          lastAt: 0,
          consumed: false,
        });
        this.refresh(s);
        this.addToVersion(s);
      }
      this.nextSeq += fresh.length;
      this.scanEnd = this.slots.size;
      if (this.stableRowIds && !this.rowIdsChecked) {
        await this.checkPredictedRowIds(fresh[0]!.seq, fresh[fresh.length - 1]!.seq);
        this.rowIdsChecked = true;
      }
      let version = res.version;
      let commits = 1;
      const victims = this.chooseEvictions();
      let evicted: EvictedExperience[] = [];
      if (victims.length > 0) {
        evicted = await this.evict(victims);
        version = await this.table.version();
        commits++;
      }
      await this.committed(commits, 0);
      return { written: fresh.length, duplicates, evicted, version };
    });
  }

  /** Rows to evict so the buffer fits its capacity: retired rows first (oldest first), then the discipline's order. */
  private chooseEvictions(): number[] {
    const cap = this.config.capacity;
    const sl = this.slots;
    if (cap === null || sl.live <= cap) return [];
    let need = sl.live - cap;
    const out: number[] = [];
    for (let s = 0; s < sl.size && need > 0; s++) {
      if (sl.alive[s] && this.retired(s) && sl.pending[s] === 0 && sl.pendingSkip[s] < 0) {
        out.push(s);
        need--;
      }
    }
    if (need === 0) return out;
    const taken = new Set(out);
    // Rows with pending leases are being trained on: they are never evicted (the buffer may exceed
    // its capacity by at most that many rows until they are acknowledged).
    const candidates: number[] = [];
    for (let s = 0; s < sl.size; s++)
      if (sl.alive[s] && !taken.has(s) && sl.pending[s] === 0 && sl.pendingSkip[s] < 0) candidates.push(s);
    if (this.discipline.eviction === 'lowest-priority')
      candidates.sort((a, b) => sl.priority[a]! - sl.priority[b]! || sl.seq[a]! - sl.seq[b]!);
    for (let i = 0; i < candidates.length && need > 0; i++, need--) out.push(candidates[i]!);
    return out;
  }

  private async evict(slots: number[]): Promise<EvictedExperience[]> {
    const sl = this.slots;
    const cap = this.config.capacity;
    const evicted = slots.map((s) => ({
      id: sl.ids[s]!,
      seq: sl.seq[s]!,
      priority: sl.priority[s]!,
      useCount: sl.uses[s]!,
      reason: this.retired(s)
        ? `capacity ${cap}: already used up or skipped`
        : this.discipline.eviction === 'lowest-priority'
          ? `capacity ${cap}: lowest priority (${round(sl.priority[s]!)})`
          : `capacity ${cap}: oldest`,
    }));
    const rowIds = slots.map((s) => sl.rowId[s]!);
    const pred =
      this.stableRowIds && rowIds.every((r) => r >= 0) && (await this.rowIdsVerified(slots))
        ? `_rowid IN (${rowIds.join(',')})`
        : `seq IN (${slots.map((s) => sl.seq[s]).join(',')})`;
    await this.table.delete(pred);
    for (const s of slots) this.removeSlot(s);
    this.rejected.add(
      evicted.map((e) => ({
        step: 'buffer:evict',
        reason: e.reason,
        rowId: e.id,
        payload: JSON.stringify({ seq: e.seq, priority: e.priority, useCount: e.useCount }),
        runId: this.config.runId,
      })),
    );
    await this.rejected.flush();
    return evicted;
  }

  /**
   * Lance gives an append's rows consecutive stable row ids from the table's counter, which only
   * this buffer advances (one writer per table), so the ids of written rows are predicted. The
   * first write after open reads back its first and last row to learn where the counter really
   * stands (rows deleted before a reopen leave a gap the index cannot see); a wrong guess is
   * corrected by a scan.
   */
  private async checkPredictedRowIds(firstSeq: number, lastSeq: number): Promise<void> {
    const sl = this.slots;
    const pair = [sl.slotOfSeq(firstSeq), sl.slotOfSeq(lastSeq)];
    const t = await this.table
      .takeRowIds([...new Set(pair.map((s) => sl.rowId[s]!))])
      .select(['seq'])
      .withRowId()
      .toArrow();
    const seqs = t.getChild('seq')?.toArray() as ArrayLike<number>;
    const rids = t.getChild('_rowid')?.toArray() as ArrayLike<bigint>;
    let ok = 0;
    for (let i = 0; i < t.numRows; i++) {
      const s = sl.slotOfSeq(seqs[i]!);
      if (s >= 0 && pair.includes(s) && sl.rowId[s] === Number(rids[i])) ok++;
    }
    if (ok !== new Set(pair).size) await this.resolveRowIds(firstSeq);
  }

  /** Row ids of written rows are predicted; before deleting by row id make sure they are right. */
  private async rowIdsVerified(slots: number[]): Promise<boolean> {
    const sl = this.slots;
    const t = await this.table
      .takeRowIds(slots.map((s) => sl.rowId[s]!))
      .select(['seq'])
      .toArrow();
    const got = new Set(Array.from(t.getChild('seq')?.toArray() as ArrayLike<number>));
    if (slots.every((s) => got.has(sl.seq[s]!))) return true;
    await this.resolveRowIds(Math.min(...slots.map((s) => sl.seq[s]!)));
    return false;
  }

  // ---------------------------------------------------------------- sample

  /**
   * Choose up to `n` experiences for train step `opts.step` and lease them (one journal commit).
   * Returns fewer when fewer are eligible (or, with `keepGroups`, when groups do not fit).
   */
  sample(n: number, opts: SampleOptions): Promise<SampleResult> {
    return this.serial(() => this.sampleNow(n, opts));
  }

  private async sampleNow(n: number, opts: SampleOptions): Promise<SampleResult> {
    const { step } = opts;
    if (!Number.isInteger(step) || step < 0)
      throw new WinnowError(
        `buffer '${this.config.table}': sample step must be a non-negative integer, got ${step}`,
      );
    if (!Number.isInteger(n) || n < 0)
      throw new WinnowError(
        `buffer '${this.config.table}': sample size must be a non-negative integer, got ${n}`,
      );
    if (step <= this.lastAcked)
      throw new WinnowError(
        `buffer '${this.config.table}': sample step ${step} is not after the last acknowledged step ${this.lastAcked}`,
      );
    const now = opts.now ?? Date.now();
    const sl = this.slots;
    const lim = this.discipline.limits;
    const cooldownMs = lim.cooldownSeconds * 1000;
    const minVersion =
      opts.maxStaleness === undefined
        ? Number.NEGATIVE_INFINITY
        : (opts.modelVersion ?? step) - opts.maxStaleness;

    while (this.scanStart < this.scanEnd && this.retired(this.scanStart)) this.scanStart++;
    while (this.scanEnd > this.scanStart && this.retired(this.scanEnd - 1)) this.scanEnd--;

    const skippedSlots = minVersion > Number.NEGATIVE_INFINITY ? this.staleSlots(minVersion) : [];
    const skippedSet = new Set(skippedSlots);
    const eligible = (s: number): boolean => {
      if (!sl.alive[s] || sl.consumed[s] || sl.pendingSkip[s]! >= 0 || skippedSet.has(s)) return false;
      if (sl.uses[s]! + sl.pending[s]! >= lim.maxUses) return false;
      if (sl.modelVersion[s]! < minVersion) return false;
      const last = Math.max(sl.lastStep[s]!, sl.pendingStep[s]!);
      if (last >= 0 && step - last <= lim.cooldownSteps) return false;
      if (cooldownMs > 0) {
        const at = Math.max(sl.lastAt[s]!, sl.pendingAt[s]!);
        if (last >= 0 && now - at < cooldownMs) return false;
      }
      return true;
    };
    const view: CandidateView = {
      start: this.scanStart,
      end: this.scanEnd,
      seq: sl.seq,
      priority: sl.priority,
      group: sl.group,
      eligible,
      ...(this.heap ? { heap: this.heap } : {}),
      ...(this.tree ? { tree: this.tree } : {}),
    };
    if (this.callsAtStep.step !== step) this.callsAtStep = { step, calls: 0 };
    const rng = new Rng(
      hashSeed(this.config.seed, 'sample', this.config.table, step, this.callsAtStep.calls++),
    );
    const chosen = selectSlots(this.discipline, view, n, { keepGroups: this.config.keepGroups, rng });

    const skipReason = (s: number) =>
      `stale: model version ${sl.modelVersion[s]} < ${minVersion} (version ${opts.modelVersion ?? step} − maxStaleness ${opts.maxStaleness})`;
    const entries: JournalEntry[] = [
      ...chosen.slots.map((s) => ({
        kind: 'use' as const,
        seq: sl.seq[s]!,
        id: sl.ids[s]!,
        step,
        at: now,
        reason: '',
      })),
      ...skippedSlots.map((s) => ({
        kind: 'skip' as const,
        seq: sl.seq[s]!,
        id: sl.ids[s]!,
        step,
        at: now,
        reason: skipReason(s),
      })),
    ];
    // The lease commit and the payload read are independent: run them together.
    const [leased, fetched] = await Promise.allSettled([
      this.journal.append(entries),
      this.fetch(chosen.slots),
    ]);
    if (leased.status === 'rejected') throw leased.reason;
    if (fetched.status === 'rejected') {
      await this.journal.dropEntries(
        step,
        entries.map((e) => e.seq),
      );
      throw fetched.reason;
    }
    const rows = fetched.value;

    const skipped: SkippedExperience[] = skippedSlots.map((s) => ({
      id: sl.ids[s]!,
      modelVersion: sl.modelVersion[s]!,
      reason: skipReason(s),
    }));
    const experiences: Experience[] = chosen.slots.map((s) => {
      const exp = rows.get(s)!;
      const priority = sl.priority[s]!;
      sl.addLease(s, { step, at: now, kind: 'use' });
      this.refresh(s);
      exp.useCount = sl.effectiveUses(s);
      exp.priority = priority;
      return exp;
    });
    for (const s of skippedSlots) sl.addLease(s, { step, at: now, kind: 'skip' });
    if (skipped.length > 0) {
      this.rejected.add(
        skipped.map(
          (k): RejectedInput => ({
            step: opts.skipStepName ?? 'sample:staleness',
            reason: k.reason,
            rowId: k.id,
            payload: JSON.stringify({ modelVersion: k.modelVersion, trainStep: step }),
            runId: this.config.runId,
          }),
        ),
      );
      await this.rejected.flush();
    }
    await this.committed(0, entries.length > 0 ? 1 : 0);
    return {
      step,
      experiences,
      weights: chosen.weights,
      skipped,
      requested: n,
    };
  }

  /**
   * Deliverable rows whose model version is below `minVersion`, oldest versions first. Versions only
   * fall further behind, so such rows are skipped for good; buckets drop rows once they are retired.
   */
  private staleSlots(minVersion: number): number[] {
    const sl = this.slots;
    const out: number[] = [];
    const versions = [...this.byVersion.keys()].filter((v) => v < minVersion).sort((a, b) => a - b);
    for (const v of versions) {
      const keep: number[] = [];
      for (const s of this.byVersion.get(v)!) {
        if (this.retired(s)) continue;
        keep.push(s);
        if (sl.pendingSkip[s]! < 0 && sl.pending[s] === 0) out.push(s);
      }
      if (keep.length > 0) this.byVersion.set(v, keep);
      else this.byVersion.delete(v);
    }
    return out;
  }

  /** Full rows for the chosen slots, keyed by slot. */
  private async fetch(slots: readonly number[]): Promise<Map<number, Experience>> {
    const out = new Map<number, Experience>();
    if (slots.length === 0) return out;
    const sl = this.slots;
    if (this.stableRowIds) {
      const unknown = slots.filter((s) => sl.rowId[s]! < 0);
      if (unknown.length > 0) await this.resolveRowIds(Math.min(...unknown.map((s) => sl.seq[s]!)));
      await this.takeBySlot(slots, out);
      const missing = slots.filter((s) => !out.has(s));
      if (missing.length > 0) {
        // Not found by id (the table was changed behind the buffer's back): learn the ids again.
        await this.resolveRowIds(Math.min(...missing.map((s) => sl.seq[s]!)));
        await this.takeBySlot(missing, out);
      }
    }
    const left = slots.filter((s) => !out.has(s));
    if (left.length > 0) {
      // No stable row ids (a table made elsewhere), or rows not found by id: fetch by seq.
      const t = await this.table
        .query()
        .where(`seq IN (${left.map((s) => sl.seq[s]).join(',')})`)
        .toArrow();
      for (const r of decodeExperiences(t)) {
        const s = sl.slotOfSeq(r.seq);
        if (s >= 0) out.set(s, r.exp);
      }
    }
    const lost = slots.filter((s) => !out.has(s));
    if (lost.length > 0)
      throw new DataError({
        file: this.config.table,
        message: `${lost.length} sampled row(s) are no longer in the table (first: id ${sl.ids[lost[0]!]}); was it changed by another process?`,
      });
    return out;
  }

  /** Take the payload columns of `slots` by row id and complete them from the index. */
  private async takeBySlot(slots: readonly number[], out: Map<number, Experience>): Promise<void> {
    const sl = this.slots;
    const byRowId = new Map<number, number>();
    for (const s of slots) if (sl.rowId[s]! >= 0) byRowId.set(sl.rowId[s]!, s);
    if (byRowId.size === 0) return;
    let flags = 0;
    for (const s of byRowId.values()) flags |= sl.payload[s]!;
    const t = await this.table
      .takeRowIds([...byRowId.keys()].sort((a, b) => a - b))
      .select(payloadColumns(flags))
      .withRowId()
      .toArrow();
    const identity = (rowId: number): RowIdentity => {
      const s = byRowId.get(rowId)!;
      return {
        id: sl.ids[s]!,
        taskId: sl.taskIds[s]!,
        taskset: sl.tasksetNames[sl.taskset[s]!]!,
        groupId: sl.groupNames[sl.group[s]!]!,
        runIndex: sl.runIndex[s]!,
        stepIndex: sl.stepIndex[s]!,
        modelVersion: sl.modelVersion[s]!,
        exploreStep: sl.exploreStep[s]!,
        promptLength: sl.promptLength[s]!,
        reward: sl.reward[s]!,
        advantage: sl.advantage[s]!,
        truncated: (sl.flags[s]! & 1) === 1,
        useCount: 0,
        priority: 0,
        createdAt: sl.createdAt[s]!,
        expert: (sl.flags[s]! & 2) === 2,
      };
    };
    for (const [rowId, exp] of decodePayloads(t, identity)) out.set(byRowId.get(rowId)!, exp);
  }

  /** Learn the row ids of every row with seq ≥ `fromSeq` (after a wrong prediction). */
  private async resolveRowIds(fromSeq: number): Promise<void> {
    const t = await this.table.query().where(`seq >= ${fromSeq}`).select(['seq']).withRowId().toArrow();
    const seq = t.getChild('seq')?.toArray() as ArrayLike<number>;
    const rid = t.getChild('_rowid')?.toArray() as ArrayLike<bigint>;
    for (let i = 0; i < t.numRows; i++) {
      const s = this.slots.slotOfSeq(seq[i]!);
      const r = Number(rid[i]);
      if (s >= 0) this.slots.rowId[s] = r;
      if (r >= this.nextRowId) this.nextRowId = r + 1;
    }
  }

  // ---------------------------------------------------------------- ack / recover

  /**
   * Acknowledge every lease (and skip) with a step ≤ `step`: one journal commit. Call it once the
   * trainer's checkpoint covering `step` is durable; use counts are final from then on.
   */
  ack(step: number): Promise<AckResult> {
    return this.serial(async () => {
      if (step < this.lastAcked) return { step, acknowledged: 0 };
      await this.journal.append([{ kind: 'ack', seq: -1, id: '', step, at: Date.now(), reason: '' }]);
      const before = this.slots.pendingCount();
      const touched = this.slots.settle(step, 'ack');
      for (const s of touched) this.refresh(s);
      this.lastAcked = step;
      await this.committed(0, 1);
      return { step, acknowledged: before - this.slots.pendingCount() };
    });
  }

  /**
   * After a crash: the trainer resumes from its checkpoint of step `trainedThroughStep`. Leases up
   * to that step are acknowledged, later ones rolled back. `null` (no checkpoint) rolls back every
   * lease that was not acknowledged.
   */
  recover(trainedThroughStep: number | null): Promise<RecoverResult> {
    return this.serial(async () => {
      const t = trainedThroughStep ?? this.lastAcked;
      if (t < this.lastAcked)
        throw new WinnowError(
          `buffer '${this.config.table}': cannot resume from step ${t}: deliveries up to step ${this.lastAcked} were already acknowledged (acknowledge a step only once the trainer's checkpoint for it is durable)`,
        );
      const pendingBefore = this.slots.pendingCount();
      let commits = 0;
      if (t > this.lastAcked) {
        // The checkpoint covers step t: its leases count, and later samples must be after it.
        await this.journal.append([{ kind: 'ack', seq: -1, id: '', step: t, at: Date.now(), reason: '' }]);
        commits++;
        for (const s of this.slots.settle(t, 'ack')) this.refresh(s);
        this.lastAcked = t;
      }
      const acknowledged = pendingBefore - this.slots.pendingCount();
      const rolledBack = this.slots.pendingCount();
      if (rolledBack > 0) {
        await this.journal.dropAfter(t);
        commits++;
        for (const s of this.slots.settle(t, 'rollbackAfter')) this.refresh(s);
      }
      this.callsAtStep = { step: Number.NaN, calls: 0 };
      await this.committed(0, commits);
      return { trainedThroughStep: t, acknowledged, rolledBack };
    });
  }

  // ---------------------------------------------------------------- fold / compact

  /** Write acknowledged use counts, priorities and consumption into the experience table now. */
  flush(): Promise<number> {
    return this.serial(() => this.foldNow());
  }

  private async foldNow(): Promise<number> {
    const sl = this.slots;
    const rows: StoredExperience[] = [];
    for (const s of sl.dirty) {
      if (!sl.alive[s]) continue;
      rows.push({
        exp: undefined as unknown as Experience, // fold columns read only the fields below
        seq: sl.seq[s]!,
        useCount: sl.uses[s]!,
        priority: this.discipline.priority(this.facts(s), sl.uses[s]!),
        lastUsedStep: sl.lastStep[s]!,
        lastUsedAt: sl.lastAt[s]!,
        consumed: sl.consumed[s] === 1,
      });
    }
    if (rows.length > 0) {
      await this.table.mergeInsert('seq').whenMatchedUpdateAll().execute(encodeRowsFast(rows, FOLD_COLUMNS));
      this.mainCommits++;
    }
    sl.dirty.clear();
    if (this.lastAcked >= 0) {
      await this.journal.trimThrough(this.lastAcked);
      this.journalCommits++;
    }
    return rows.length;
  }

  /** Fold, merge small fragments and drop old versions of both tables (automatic every `compactEvery` commits of a table). */
  compact(): Promise<void> {
    return this.serial(() => this.compactNow());
  }

  private cleanupCutoff(): Date {
    return new Date(Date.now() - this.config.retainVersionsSeconds * 1000);
  }

  private async compactNow(): Promise<void> {
    await this.foldNow();
    await this.table.optimize({ cleanupOlderThan: this.cleanupCutoff() });
    this.mainCommits = 0;
    await this.compactJournal();
    if (this.slots.compact()) this.reindex();
  }

  private async compactJournal(): Promise<void> {
    await this.journal.table.optimize({ cleanupOlderThan: this.cleanupCutoff() });
    this.journalCommits = 0;
  }

  /** Fold what is pending and stop accepting calls. */
  close(): Promise<void> {
    const done = this.serial(async () => {
      await this.foldNow();
    });
    this.closed = true;
    return done;
  }

  // ---------------------------------------------------------------- inspection

  get size(): number {
    return this.slots.live;
  }

  get lastAcknowledgedStep(): number {
    return this.lastAcked;
  }

  version(): Promise<number> {
    return this.table.version();
  }

  stats(): BufferStats {
    const sl = this.slots;
    let retired = 0;
    let uses = 0;
    for (let s = 0; s < sl.size; s++) {
      if (!sl.alive[s]) continue;
      if (this.retired(s)) retired++;
      uses += sl.uses[s]!;
    }
    return {
      rows: sl.live,
      retired,
      pendingLeases: sl.pendingCount(),
      unfolded: sl.dirty.size,
      inserted: this.nextSeq,
      acknowledgedUses: uses,
      lastAcknowledgedStep: this.lastAcked,
    };
  }

  /** Bookkeeping of every stored row in seq order (acknowledged + pending). */
  bookkeeping(): RowBookkeeping[] {
    const sl = this.slots;
    const out: RowBookkeeping[] = [];
    for (let s = 0; s < sl.size; s++) {
      if (!sl.alive[s]) continue;
      out.push({
        id: sl.ids[s]!,
        seq: sl.seq[s]!,
        modelVersion: sl.modelVersion[s]!,
        useCount: sl.uses[s]!,
        pending: sl.pending[s]!,
        lastUsedStep: sl.lastStep[s]!,
        consumed: this.retired(s),
        priority: sl.priority[s]!,
      });
    }
    return out;
  }

  /** Read stored experiences (payload from the table, use counts as acknowledged so far). */
  async read(opts: { limit?: number } = {}): Promise<Experience[]> {
    let q = this.table.query();
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    const rows = decodeExperiences(await q.toArrow()).sort((a, b) => a.seq - b.seq);
    return rows.map((r) => {
      const s = this.slots.slotOfSeq(r.seq);
      if (s < 0) return r.exp;
      return {
        ...r.exp,
        useCount: this.slots.uses[s]!,
        priority: this.discipline.priority(this.facts(s), this.slots.uses[s]!),
      };
    });
  }
}

/** Open an experience table, creating it with stable row ids (so rows can be fetched by id after compaction). */
async function openExperienceTable(
  conn: Connection,
  name: string,
): Promise<{ table: Table; stable: boolean }> {
  const names = await conn.tableNames();
  const existing = names.includes(name) ? await openListedTable(conn, name) : null;
  if (existing) {
    const table = existing;
    const schema = await table.schema();
    const have = new Set(schema.fields.map((f) => f.name));
    const missing = REQUIRED_COLUMNS.filter((c) => !have.has(c));
    if (missing.length > 0)
      throw new DataError({
        file: name,
        message: `table '${name}' is not an experience table: missing column(s) ${missing.join(', ')}`,
      });
    return { table, stable: schema.metadata.get(STABLE_ROW_IDS_KEY) === 'true' };
  }
  const schema = new arrow.Schema(EXPERIENCE_SCHEMA.fields, new Map([[STABLE_ROW_IDS_KEY, 'true']]));
  try {
    const table = await conn.createEmptyTable(name, schema, {
      mode: 'create',
      existOk: true,
      storageOptions: { new_table_enable_stable_row_ids: 'true' },
    });
    const meta = (await table.schema()).metadata;
    return { table, stable: meta.get(STABLE_ROW_IDS_KEY) === 'true' };
  } catch (err) {
    if ((await conn.tableNames()).includes(name)) return openExperienceTable(conn, name);
    throw err;
  }
}

function round(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(4);
}
