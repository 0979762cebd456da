import type { RunRecord } from '../../store/run-table.ts';
import { FileLease } from '../file-lease.ts';
import { runPlaces } from './run-plan.ts';

/** The file leases an RFT start holds: its own, and while its data is removed, the run --overwrite replaces. */
export interface HeldLeases {
  lease?: FileLease | undefined;
  replaced?: FileLease | undefined;
}

/**
 * Take the run's file lease (a local database; whatever the mode) and, for `--overwrite` of a run
 * other than the one starting, that run's too: a live run is never removed from under itself. A
 * replaced run with our id or our table is covered by our own lease. Throws LeaseHeldError naming
 * the holder; what was taken stays in `held` for `releaseRunLeases`.
 */
export function takeRunLeases(
  held: HeldLeases,
  o: { dbDir: string; runId: string; bufferTable: string; overwrite: RunRecord | null; mode: string },
): void {
  held.lease = FileLease.acquire({
    dbDir: o.dbDir,
    runId: o.runId,
    bufferTable: o.bufferTable,
    mode: o.mode,
  });
  const old = o.overwrite;
  if (!old) return;
  const bufferTable = runPlaces(old).bufferTable ?? `${old.runId}_experiences`;
  if (old.runId === o.runId || bufferTable === o.bufferTable) return;
  held.replaced = FileLease.acquire({ dbDir: o.dbDir, runId: old.runId, bufferTable, mode: o.mode });
}

export function releaseRunLeases(held: HeldLeases): void {
  held.lease?.releaseSync();
  held.replaced?.releaseSync();
}
