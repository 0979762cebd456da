import { isEngineMessage, storageFaultOf, translateEngineError } from '../../core/engine-error.ts';
import { errorMessage, StrictModeError, WinnowError } from '../../core/errors.ts';
import type { RejectedStore } from '../../store/rejected-store.ts';
import { sqlString } from '../../store/sql.ts';
import type { TaskStore } from '../../store/task-store.ts';

/**
 * How a failed ingest ended, as its run record's `outcome` says:
 * - `rolled-back`: the task table is back at the version the run started from (same rows, same
 *   content) and the run's rejected rows are removed, unless they explain the failure (strict mode,
 *   too many rejected rows: `rejectedKept`);
 * - `kept-partial`: asked for with `keepPartial`; the rows committed before the failure stay,
 *   each marked by its `run_id`, and the record counts them;
 * - `rollback-failed`: the rollback itself failed (a disk too full even for a manifest); the
 *   run's rows stay, marked by `run_id`, and running the pipeline again replaces them.
 */
export type FailedIngestOutcome =
  | { kind: 'rolled-back'; table: string; toVersion: number; rejectedKept: boolean }
  | { kind: 'kept-partial'; table: string; version: number; rows: number }
  | { kind: 'rollback-failed'; table: string; error: string };

interface FailedIngest {
  store: TaskStore;
  table: string;
  rejectedStore: RejectedStore;
  runId: string;
  startVersion: number;
  keepPartial: boolean;
  error: unknown;
}

/**
 * Undo what a failed ingest wrote. The task table is restored to its start version (a new version
 * with the old content): the run holds the table's lease, so no other writer's commit can be
 * lost, and a restore also undoes updates of rows that existed before, which deleting by run id
 * could not. The rejected table is shared by every run of the database and written without a
 * lease, so a restore there could drop another run's rows: this run's rows are deleted by run id.
 */
export async function endFailedIngest(f: FailedIngest): Promise<FailedIngestOutcome> {
  const { store, table, runId } = f;
  // The rejected rows of a data-quality failure are its explanation (`winnow inspect … --run`).
  const rejectedKept = f.error instanceof StrictModeError;
  try {
    if (f.keepPartial && !rejectedKept) {
      if (f.rejectedStore.pendingCount > 0) await f.rejectedStore.flush();
      const rows = await store.table.countRows(`run_id = ${sqlString(runId)}`);
      return { kind: 'kept-partial', table, version: await store.version(), rows };
    }
    if (rejectedKept) await f.rejectedStore.flush();
    else await f.rejectedStore.deleteRun(runId); // rows still pending are never written
    await store.restoreTo(f.startVersion);
    await store.untagRun(runId);
    return { kind: 'rolled-back', table, toVersion: f.startVersion, rejectedKept };
  } catch (err) {
    return { kind: 'rollback-failed', table, error: errorMessage(err) };
  }
}

/** The outcome in words, for the error line. */
export function describeOutcome(runId: string, o: FailedIngestOutcome): string {
  if (o.kind === 'rolled-back')
    return `nothing of run ${runId} was kept: table '${o.table}' was rolled back to version ${o.toVersion}${o.rejectedKept ? '' : ' and its rejected rows removed'}`;
  if (o.kind === 'kept-partial')
    return `kept partial (--keep-partial): ${o.rows} row(s) of run ${runId} stay in table '${o.table}' at version ${o.version}, marked run_id = '${runId}'`;
  return `the rollback failed too (${o.error}): rows of run ${runId} may stay in table '${o.table}' (run_id = '${runId}'); running the pipeline again replaces them`;
}

/**
 * The error a failed ingest ends with: an engine or storage failure becomes one line naming the
 * database, the table, the outcome and a next step; our own errors and a user module's own
 * failure pass through (its stack stays available with --debug).
 */
export function failedIngestError(
  err: unknown,
  where: { dbDir: string; table: string; outcome: string },
): unknown {
  if (err instanceof WinnowError) return err;
  if (!isEngineMessage(err) && !storageFaultOf(err)) return err;
  return translateEngineError(err, {
    db: where.dbDir,
    table: where.table,
    doing: 'ingest',
    outcome: where.outcome,
  });
}
