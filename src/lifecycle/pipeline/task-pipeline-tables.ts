import { hostname } from 'node:os';
import { isEngineMessage, storageFaultOf, translateEngineError } from '../../core/engine-error.ts';
import { RejectedStore } from '../../store/rejected-store.ts';
import { type RunIdentity, RunRecorder, RunTable } from '../../store/run-table.ts';
import { TaskStore } from '../../store/task-store.ts';
import { FileLease } from '../file-lease.ts';

/** The tables a task pipeline writes, opened, and the version its task table starts from. */
export interface IngestTables {
  store: TaskStore;
  rejectedStore: RejectedStore;
  recorder: RunRecorder;
  startVersion: number;
  /** The task table was empty: every id is new, so commits can append instead of merging on id. */
  appendOnly: boolean;
}

/**
 * Open (creating where missing) the task, rejected and runs tables and record the run as
 * `running`. An engine or storage failure here (a full disk, a permission) is one line naming the
 * database and the table; nothing of the run's own has been written yet.
 */
export async function openIngestTables(
  dbDir: string,
  tables: { tasks: string; rejected: string },
  identity: RunIdentity,
): Promise<IngestTables> {
  let table = tables.tasks;
  try {
    const store = await TaskStore.open(dbDir, tables.tasks);
    table = tables.rejected;
    const rejectedStore = await RejectedStore.open(dbDir, tables.rejected);
    table = 'runs';
    // pid and host let `winnow runs` tell a record left `running` (a disk too full for the failure
    // record, a kill) from a live run.
    const recorder = new RunRecorder(await RunTable.open(dbDir), identity, {
      fixed: { pid: process.pid, host: hostname() },
    });
    table = tables.tasks;
    const startVersion = await store.version();
    const appendOnly = (await store.count()) === 0;
    table = 'runs';
    await recorder.mark('running', startVersion, {});
    return { store, rejectedStore, recorder, startVersion, appendOnly };
  } catch (err) {
    if (!isEngineMessage(err) && !storageFaultOf(err)) throw err;
    throw translateEngineError(err, {
      db: dbDir,
      table,
      doing: 'opening',
      outcome: `run ${identity.runId} wrote nothing`,
    });
  }
}

/** The file lease on a local database's task table; a full disk or a permission is one line. */
export function takeTaskTableLease(
  dbDir: string,
  runId: string,
  table: string,
  mode: string,
): FileLease | undefined {
  try {
    return FileLease.acquire({ dbDir, runId, bufferTable: table, tableKind: 'task table', mode });
  } catch (err) {
    if (!storageFaultOf(err)) throw err;
    throw translateEngineError(err, {
      db: dbDir,
      table,
      doing: 'taking the run lease',
      outcome: `run ${runId} wrote nothing`,
    });
  }
}
