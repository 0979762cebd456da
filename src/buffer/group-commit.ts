import type { CapacityGuard } from './capacity-guard.ts';
import { type CheckedWrite, numberGroup } from './checked-write.ts';
import type { EvictedExperience } from './experience-results.ts';
import type { ExperienceSlots } from './experience-slots.ts';
import type { ExperienceStorage } from './experience-storage.ts';
import type { Sampler } from './samplers/sampler.ts';
import type { TableUpkeep } from './table-upkeep.ts';
import type { UseState } from './use-state.ts';

/** The buffer's parts a group commit writes through. */
export interface GroupCommitParts {
  table: string;
  /** Seq of the group's first new row. */
  firstSeq: number;
  slots: ExperienceSlots;
  storage: ExperienceStorage;
  use: UseState;
  capacity: CapacityGuard;
  upkeep: TableUpkeep;
  sampler: Sampler;
  /** Called once the rows are indexed, before any call settles (seq counter, rate limiter). */
  onIndexed(rows: number): void;
}

/**
 * Write the calls of one group (ExperienceBuffer.write; each call's rows were checked when it was
 * made) as one LanceDB commit: number the rows in call order, append every fresh row, index them,
 * evict over capacity, then settle each call's promise — only now, after the commit. A failed
 * commit fails every call and indexes nothing.
 */
export async function commitGroup(p: GroupCommitParts, calls: readonly CheckedWrite[]): Promise<void> {
  const prepared = numberGroup(calls, {
    firstSeq: p.firstSeq,
    has: (id) => p.slots.idToSlot.has(id),
    sampler: p.sampler,
  });
  const fresh = prepared.flatMap((r) => r.fresh);
  // A call whose rows are all new keeps the batch encoded when it was made; one with duplicates
  // (a re-written step) is encoded again without them.
  const parts = prepared.flatMap((r, i) => {
    if (r.fresh.length === 0) return [];
    const call = calls[i]!;
    const encoded =
      r.fresh.length === call.rows.length ? call.encoded : p.storage.encodeWrite(r.fresh.map((f) => f.exp));
    return [{ encoded, rows: r.fresh }];
  });
  const settle = (version: number, evicted: EvictedExperience[]) => {
    const last = prepared.length - 1;
    prepared.forEach((r, i) => {
      const done = calls[i]!.done;
      // Evictions are reported once, to the group's last call.
      done({
        written: r.fresh.length,
        duplicates: r.duplicates,
        evicted: i === last ? evicted : [],
        version,
      });
    });
  };
  try {
    if (fresh.length === 0) {
      settle(await p.storage.version(), []);
      return;
    }
    let version = await p.storage.appendEncoded(parts);
    for (const { encoded, rows } of parts)
      for (let k = 0; k < rows.length; k++) {
        const e = rows[k]!.exp;
        const s = p.slots.append({
          id: e.id,
          seq: rows[k]!.seq,
          rowId: p.storage.predictRowId(),
          groupId: e.groupId,
          modelVersion: e.modelVersion,
          advantage: e.advantage,
          createdAt: e.createdAt,
          taskId: e.taskId,
          taskset: e.taskset,
          runIndex: e.runIndex,
          stepIndex: e.stepIndex,
          exploreStep: e.exploreStep,
          promptLength: e.promptLength,
          reward: e.reward,
          truncated: e.truncated,
          expert: e.expert,
          payload: encoded.flags[k]!,
          uses: 0,
          lastStep: -1,
          lastAt: 0,
          consumed: false,
        });
        p.use.added(s);
      }
    // Indexed: from here on the seqs are taken, whatever fails next.
    p.onIndexed(fresh.length);
    await p.storage.confirmAppend(fresh[0]!.seq, fresh[fresh.length - 1]!.seq);
    let commits = 1;
    const victims = p.capacity.choose();
    let evicted: EvictedExperience[] = [];
    if (victims.length > 0) {
      // A delete could conflict with a background fold or compaction of the same rows.
      await p.upkeep.idle();
      evicted = await p.capacity.evict(victims);
      version = await p.storage.version();
      commits++;
    }
    await p.upkeep.committed(commits, 0);
    settle(version, evicted);
  } catch (err) {
    for (const call of calls) call.done(err instanceof Error ? err : new Error(String(err)));
  }
}
