import type { CapacityGuard } from '../capacity-guard.ts';
import type { EvictedExperience } from '../experience-results.ts';
import type { ExperienceSlots } from '../index/experience-slots.ts';
import type { UseState } from '../index/use-state.ts';
import type { Sampler } from '../samplers/sampler.ts';
import { type CheckedWrite, type NumberedCall, numberGroup } from './checked-write.ts';
import { keptRuns, type NumberedWrite } from './encoded-write.ts';
import type { ExperienceStorage } from './experience-storage.ts';
import type { TableUpkeep } from './table-upkeep.ts';

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
  /** Settles once the group started before this one has finished (indexed and settled). */
  previous: Promise<void>;
  /** The first seq of the oldest group still in flight beside this one (this one's own when none). */
  oldestFirstSeq: number;
  /** The highest append version of the groups finished before (-1: none). */
  lastVersion(): number;
  /** Called once the rows are indexed, before any call settles (rate limiter; the append's version). */
  onIndexed(rows: number, version: number): void;
  /** The append failed: the group's `rows` seqs from `firstSeq` on were never used. */
  onFailed(firstSeq: number, rows: number): void;
}

/** A group commit handed to LanceDB: its new rows, their ids, and when it has finished. */
export interface StartedGroup {
  /** Rows new to the buffer (they take the seqs from `firstSeq` on). */
  fresh: number;
  /** Their ids. */
  ids: ReadonlySet<string>;
  /** Settles once the rows are indexed and every call settled (never rejects). */
  finished: Promise<void>;
}

/**
 * Start the commit of one group's calls (ExperienceBuffer.write; each call's rows were checked when
 * it was made) as one LanceDB append: number the rows in call order and hand LanceDB the append,
 * now. What follows waits for the append to land and for the group started before this one to
 * finish, so groups are indexed and settled in call order even when their appends land in another:
 * index the rows, evict over capacity, then settle each call's promise (only now, after the
 * commit). A failed append fails every call of the group and indexes nothing.
 */
export function startGroupCommit(p: GroupCommitParts, calls: readonly CheckedWrite[]): StartedGroup {
  const ids = new Set<string>();
  const fail = (err: unknown) => {
    for (const call of calls) call.done(err instanceof Error ? err : new Error(String(err)));
  };
  let numbered: NumberedCall[];
  let parts: FreshPart[];
  try {
    numbered = numberGroup(calls, {
      firstSeq: p.firstSeq,
      has: (id) => p.slots.idToSlot.has(id),
      sampler: p.sampler,
      grouped: ids,
    });
    parts = freshParts(calls, numbered);
  } catch (err) {
    // A sampler's priority that throws, say: the group fails, in its turn, and takes no seqs.
    return { fresh: 0, ids: new Set(), finished: p.previous.then(() => fail(err)) };
  }
  let freshRows = 0;
  for (const r of numbered) freshRows += r.count;
  const settle = (version: number, evicted: EvictedExperience[]) => {
    const last = numbered.length - 1;
    numbered.forEach((r, i) => {
      // Evictions are reported once, to the group's last call.
      calls[i]!.done({
        written: r.count,
        duplicates: r.duplicates,
        evicted: i === last ? evicted : [],
        version,
      });
    });
  };
  // Started before anything awaits, so the append is on LanceDB's threads when this returns.
  const appended = freshRows === 0 ? p.storage.version() : p.storage.appendEncoded(parts);
  const finished = (async () => {
    let version: number;
    try {
      version = await appended;
    } catch (err) {
      await p.previous;
      if (freshRows > 0) p.onFailed(p.firstSeq, freshRows);
      return fail(err);
    }
    await p.previous;
    if (freshRows === 0) return settle(version, []);
    try {
      await indexGroup(p, calls, parts, freshRows, version);
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
      fail(err);
    }
  })();
  return { fresh: freshRows, ids, finished };
}

/** One encoded batch of a group's append: a call's rows, or a run of its new rows. */
interface FreshPart extends NumberedWrite {
  call: number;
  firstRow: number;
}

/**
 * A call whose rows are all new keeps the batch encoded when it was made; one with duplicates
 * (a re-written step) goes as slices of that batch, one per run of new rows.
 */
function freshParts(calls: readonly CheckedWrite[], numbered: readonly NumberedCall[]): FreshPart[] {
  return numbered.flatMap((r, i) => {
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
}

/**
 * Index a landed group's rows with their predicted row ids. Lance numbers rows in the order appends
 * land; when this append may have landed before one started earlier (its version is not above a
 * finished group's), the row ids predicted for the groups side by side are forgotten and read back
 * from the table on their first take. (A prediction that is wrong anyway is caught there too: a
 * predicted row id is always checked against the row's id and seq.)
 */
async function indexGroup(
  p: GroupCommitParts,
  calls: readonly CheckedWrite[],
  parts: readonly FreshPart[],
  freshRows: number,
  version: number,
): Promise<void> {
  // LanceDB reports the version its table handle holds once the append is done: with two appends in
  // flight that can be the other one's, so equal versions are taken as "order unknown" too.
  const misordered = version <= p.lastVersion();
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
  const lastSeq = p.firstSeq + freshRows - 1;
  if (misordered) p.storage.forgetRowIds(p.oldestFirstSeq, lastSeq);
  // Indexed: from here on the seqs are taken, whatever fails next.
  p.onIndexed(freshRows, version);
  await p.storage.confirmAppend(p.firstSeq, lastSeq);
}
