import { WinnowError } from '../core/errors.ts';
import type { AckResult, RecoverResult } from './experience-results.ts';
import type { ExperienceSlots } from './index/experience-slots.ts';
import type { UseState } from './index/use-state.ts';
import type { JournalEntry } from './storage/experience-journal.ts';
import type { ExperienceStorage } from './storage/experience-storage.ts';
import type { TableUpkeep } from './storage/table-upkeep.ts';

/** The buffer's parts that settling leases (`ack`, `recover`) reads and updates. */
export interface SettleParts {
  table: string;
  slots: ExperienceSlots;
  use: UseState;
  storage: ExperienceStorage;
  upkeep: TableUpkeep;
}

/** One `ExperienceBuffer.ack`: acknowledge every lease (and skip) with a step ≤ `step` in one journal commit. */
export async function ackLeases(p: SettleParts, step: number): Promise<AckResult> {
  if (step < p.use.lastAcked) return { step, acknowledged: 0 };
  await p.storage.journal.append([ackEntry(step)]);
  const before = p.slots.pendingCount();
  for (const s of p.slots.settle(step, 'ack')) p.use.refresh(s);
  p.use.lastAcked = step;
  await p.upkeep.committed(0, 1);
  return { step, acknowledged: before - p.slots.pendingCount() };
}

/**
 * One `ExperienceBuffer.recover`: leases up to `trainedThroughStep` are acknowledged, later ones
 * rolled back (`null`: every lease not acknowledged). `onSettled` runs once the index is settled,
 * before the upkeep count (the buffer resets its per-step call counts there).
 */
export async function recoverLeases(
  p: SettleParts,
  trainedThroughStep: number | null,
  onSettled: () => void,
): Promise<RecoverResult> {
  const last = p.use.lastAcked;
  const t = trainedThroughStep ?? last;
  if (t < last)
    throw new WinnowError(
      `buffer '${p.table}': cannot resume from step ${t}: deliveries up to step ${last} were already acknowledged (acknowledge a step only once the trainer's checkpoint for it is durable)`,
    );
  // The rollback deletes journal entries: not beside a background fold's trim of the same table.
  await p.upkeep.idle();
  const pendingBefore = p.slots.pendingCount();
  let commits = 0;
  if (t > last) {
    // The checkpoint covers step t: its leases count, and later samples must be after it.
    await p.storage.journal.append([ackEntry(t)]);
    commits++;
    for (const s of p.slots.settle(t, 'ack')) p.use.refresh(s);
    p.use.lastAcked = t;
  }
  const acknowledged = pendingBefore - p.slots.pendingCount();
  const rolledBack = p.slots.pendingCount();
  if (rolledBack > 0) {
    await p.storage.journal.dropAfter(t);
    commits++;
    for (const s of p.slots.settle(t, 'rollbackAfter')) p.use.refresh(s);
  }
  onSettled();
  await p.upkeep.committed(0, commits);
  return { trainedThroughStep: t, acknowledged, rolledBack };
}

function ackEntry(step: number): JournalEntry {
  return { kind: 'ack', seq: -1, id: '', step, at: Date.now(), reason: '' };
}
