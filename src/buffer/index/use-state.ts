import type { BufferStats, RowBookkeeping } from '../experience-results.ts';
import type { RowFacts, Sampler } from '../samplers/sampler.ts';
import type { ExperienceSlots } from './experience-slots.ts';
import { VersionBuckets } from './version-buckets.ts';

/**
 * The rules that turn per-row use bookkeeping into "may this row be delivered": retirement (used
 * up or skipped), the sampler's reuse limits and cooldowns, staleness. Keeps the derived state in
 * step with the rows — each row's priority, the sampler's own index, the version buckets and the
 * bounds outside which no row can be delivered again.
 */
export class UseState {
  lastAcked = -1;
  private readonly slots: ExperienceSlots;
  private readonly sampler: Sampler;
  private readonly facts: (slot: number) => RowFacts;
  private readonly versions = new VersionBuckets();
  private scanStart = 0;
  private scanEnd = 0;

  constructor(slots: ExperienceSlots, sampler: Sampler, facts: (slot: number) => RowFacts) {
    this.slots = slots;
    this.sampler = sampler;
    this.facts = facts;
  }

  /** Never deliverable again (whatever the step): removed, skipped, or used up (acknowledged). */
  retired(s: number): boolean {
    const sl = this.slots;
    return !sl.alive[s] || sl.consumed[s] === 1 || sl.uses[s]! >= this.sampler.limits.maxUses;
  }

  /**
   * Recompute a slot's effective priority, retire it once its acknowledged uses reach the limit, and
   * tell the sampler (retired rows leave its index).
   */
  refresh(s: number): void {
    const sl = this.slots;
    if (sl.alive[s] && !sl.consumed[s] && sl.uses[s]! >= this.sampler.limits.maxUses) {
      sl.consumed[s] = 1;
      sl.dirty.add(s);
    }
    const fixed = this.sampler.fixedPriority;
    sl.priority[s] = fixed ?? this.sampler.priority(this.facts(s), sl.effectiveUses(s));
    this.sampler.update?.(s, !this.retired(s), sl.priority[s]!);
  }

  /** Rebuild every derived index (after load and after slot compaction renumbered the slots). */
  reindex(): void {
    const sl = this.slots;
    this.sampler.reset?.(sl.size);
    this.versions.clear();
    for (let s = 0; s < sl.size; s++) {
      this.refresh(s);
      if (!this.retired(s)) this.versions.add(s, sl.modelVersion[s]!);
    }
    this.scanStart = 0;
    this.scanEnd = sl.size;
  }

  /**
   * A row was appended at slot `s`. `priority`: its priority at zero uses, when the write already
   * asked the sampler (checked-write.ts numbers each row with it): a new row is never retired.
   */
  added(s: number, priority?: number): void {
    if (priority === undefined) this.refresh(s);
    else {
      this.slots.priority[s] = priority;
      this.sampler.update?.(s, !this.retired(s), priority);
    }
    this.versions.add(s, this.slots.modelVersion[s]!);
    this.scanEnd = this.slots.size;
  }

  removed(s: number): void {
    this.slots.remove(s);
    this.sampler.update?.(s, false, 0);
  }

  /** Slots outside [start, end) can never be delivered again. */
  bounds(): { start: number; end: number } {
    while (this.scanStart < this.scanEnd && this.retired(this.scanStart)) this.scanStart++;
    while (this.scanEnd > this.scanStart && this.retired(this.scanEnd - 1)) this.scanEnd--;
    return { start: this.scanStart, end: this.scanEnd };
  }

  /** Deliverable rows below `minVersion` (skipped for good by this sample). */
  stale(minVersion: number): number[] {
    if (minVersion === Number.NEGATIVE_INFINITY) return [];
    const sl = this.slots;
    return this.versions.stale(
      minVersion,
      (s) => this.retired(s),
      (s) => sl.pendingSkip[s]! < 0 && sl.pending[s] === 0,
    );
  }

  /** Whether a slot may be delivered at `step`, wall clock `now` (ms). */
  eligibility(
    step: number,
    now: number,
    minVersion: number,
    skipped: ReadonlySet<number>,
  ): (s: number) => boolean {
    const sl = this.slots;
    const lim = this.sampler.limits;
    const cooldownMs = lim.cooldownSeconds * 1000;
    return (s) => {
      if (!sl.alive[s] || sl.consumed[s] || sl.pendingSkip[s]! >= 0 || skipped.has(s)) return false;
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
  }

  stats(): Omit<BufferStats, 'inserted'> {
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
      acknowledgedUses: uses,
      lastAcknowledgedStep: this.lastAcked,
    };
  }

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
}
