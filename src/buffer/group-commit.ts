import type { CapacityGuard } from './capacity-guard.ts';
import { type CheckedWrite, numberGroup } from './checked-write.ts';
import { keptRuns } from './encoded-write.ts';
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
  const numbered = numberGroup(calls, {
    firstSeq: p.firstSeq,
    has: (id) => p.slots.idToSlot.has(id),
    sampler: p.sampler,
  });
  let freshRows = 0;
  for (const r of numbered) freshRows += r.count;
  // A call whose rows are all new keeps the batch encoded when it was made; one with duplicates
  // (a re-written step) goes as slices of that batch, one per run of new rows.
  const parts = numbered.flatMap((r, i) => {
    if (r.count === 0) return [];
    const call = calls[i]!;
    if (r.fresh === null)
      return [
        { encoded: call.encoded, firstSeq: r.firstSeq, priorities: r.priorities, call: i, firstRow: 0 },
      ];
    const priorities = r.priorities;
    return keptRuns(call.encoded, r.fresh).map(({ encoded, at, firstRow }) => ({
      encoded,
      firstSeq: r.firstSeq + at,
      priorities:
        typeof priorities === 'number' ? priorities : priorities.subarray(at, at + encoded.flags.length),
      call: i,
      firstRow,
    }));
  });
  const settle = (version: number, evicted: EvictedExperience[]) => {
    const last = numbered.length - 1;
    numbered.forEach((r, i) => {
      const done = calls[i]!.done;
      // Evictions are reported once, to the group's last call.
      done({
        written: r.count,
        duplicates: r.duplicates,
        evicted: i === last ? evicted : [],
        version,
      });
    });
  };
  try {
    if (freshRows === 0) {
      settle(await p.storage.version(), []);
      return;
    }
    let version = await p.storage.appendEncoded(parts);
    for (const { encoded, firstSeq, priorities, call, firstRow } of parts) {
      const facts = calls[call]!.facts;
      for (let k = 0; k < encoded.flags.length; k++) {
        const s = p.slots.appendNew(
          facts,
          firstRow + k,
          firstSeq + k,
          p.storage.predictRowId(),
          encoded.flags[k]!,
        );
        p.use.added(s, typeof priorities === 'number' ? priorities : priorities[k]!);
      }
    }
    // Indexed: from here on the seqs are taken, whatever fails next.
    p.onIndexed(freshRows);
    await p.storage.confirmAppend(p.firstSeq, p.firstSeq + freshRows - 1);
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
