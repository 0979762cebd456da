import type { RejectedStore } from '../store/rejected-store.ts';
import type { EvictedExperience } from './experience-results.ts';
import type { ExperienceSlots } from './index/experience-slots.ts';
import type { UseState } from './index/use-state.ts';
import type { Remover } from './removers/remover.ts';
import type { ExperienceStorage } from './storage/experience-storage.ts';

/**
 * Keeps the buffer within `capacity`: rows that can never be delivered again go first (oldest
 * first), then the remover's order. Rows with pending leases are being trained on and are never
 * removed (the buffer may exceed its capacity by at most that many rows until they are
 * acknowledged). Every removed row is recorded in the rejected table as `buffer:evict`.
 */
export class CapacityGuard {
  private readonly capacity: number | null;
  private readonly runId: string;
  private readonly slots: ExperienceSlots;
  private readonly use: UseState;
  private readonly remover: Remover;
  private readonly storage: ExperienceStorage;
  private readonly rejected: RejectedStore;

  constructor(parts: {
    capacity: number | null;
    runId: string;
    slots: ExperienceSlots;
    use: UseState;
    remover: Remover;
    storage: ExperienceStorage;
    rejected: RejectedStore;
  }) {
    this.capacity = parts.capacity;
    this.runId = parts.runId;
    this.slots = parts.slots;
    this.use = parts.use;
    this.remover = parts.remover;
    this.storage = parts.storage;
    this.rejected = parts.rejected;
  }

  /** Rows to remove so the buffer fits its capacity (none when it fits). */
  choose(): number[] {
    const cap = this.capacity;
    const sl = this.slots;
    if (cap === null || sl.live <= cap) return [];
    let need = sl.live - cap;
    const out: number[] = [];
    const free = (s: number) => sl.alive[s] === 1 && sl.pending[s] === 0 && sl.pendingSkip[s]! < 0;
    for (let s = 0; s < sl.size && need > 0; s++) {
      if (free(s) && this.use.retired(s)) {
        out.push(s);
        need--;
      }
    }
    if (need === 0) return out;
    const taken = new Set(out);
    const candidates: number[] = [];
    for (let s = 0; s < sl.size; s++) if (free(s) && !taken.has(s)) candidates.push(s);
    this.remover.order(candidates, sl);
    for (let i = 0; i < candidates.length && need > 0; i++, need--) out.push(candidates[i]!);
    return out;
  }

  /** Remove the rows (one commit), drop them from the index and record them. */
  async evict(slots: readonly number[]): Promise<EvictedExperience[]> {
    const sl = this.slots;
    const evicted = slots.map((s) => ({
      id: sl.ids[s]!,
      seq: sl.seq[s]!,
      priority: sl.priority[s]!,
      useCount: sl.uses[s]!,
      reason: `capacity ${this.capacity}: ${this.use.retired(s) ? 'already used up or skipped' : this.remover.reason(s, sl)}`,
    }));
    await this.storage.remove(slots);
    for (const s of slots) this.use.removed(s);
    this.rejected.add(
      evicted.map((e) => ({
        step: 'buffer:evict',
        reason: e.reason,
        rowId: e.id,
        payload: JSON.stringify({ seq: e.seq, priority: e.priority, useCount: e.useCount }),
        runId: this.runId,
      })),
    );
    await this.rejected.flush();
    return evicted;
  }
}
