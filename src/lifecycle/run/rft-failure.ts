import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  engineErrorLine,
  isEngineMessage,
  storageFaultOf,
  translateEngineError,
} from '../../core/engine-error.ts';
import { WinnowError } from '../../core/errors.ts';
import type { RunRecorder } from '../../store/run-table.ts';
import { TableWriteFailure } from './table-write.ts';

/** Bytes set aside on the database's disk for the run's last record (one `runs` version takes a few KB). */
const RESERVE_BYTES = 256 * 1024;

/** The reserve file of `runId` in a local database folder. */
export const reserveFile = (dbDir: string, runId: string) => join(dbDir, `.winnow-reserve-${runId}`);

/**
 * Room kept on the database's disk so that a run the disk filled up can still record that it
 * failed: a file written at the start and deleted just before the `failed` record is written
 * (and at the end of every run). Local databases only; where it cannot be written the run goes
 * on without it.
 */
export class StorageReserve {
  private readonly file: string;
  private constructor(file: string) {
    this.file = file;
  }

  static take(dbDir: string, runId: string): StorageReserve | null {
    if (dbDir.includes('://')) return null;
    const file = reserveFile(dbDir, runId);
    try {
      const fd = openSync(file, 'w');
      try {
        writeSync(fd, Buffer.alloc(RESERVE_BYTES));
      } finally {
        closeSync(fd);
      }
      return new StorageReserve(file);
    } catch {
      rmSync(file, { force: true });
      return null;
    }
  }

  release(): void {
    rmSync(this.file, { force: true });
  }
}

export interface RunFailurePlace {
  runId: string;
  dbDir: string;
  /** The last explorer step the run finished (0: none; undefined: not known). */
  lastStep: number | undefined;
}

/**
 * The error an RFT run ends with, and the line its record keeps. A failure of the engine or the
 * disk (a write to one of the run's tables, a LanceDB error, a full disk) becomes one line naming
 * the database and table, what became of the run and the next step, never a Rust source path.
 * Anything else (our own errors, a plug-in's bug) is thrown as it is, its stack kept for --debug.
 */
export function runFailure(err: unknown, place: RunFailurePlace): { error: unknown; line: string } {
  if (err instanceof WinnowError) return { error: err, line: err.message };
  const cause = err instanceof TableWriteFailure ? err.cause : err;
  if (storageFaultOf(cause) === null && !isEngineMessage(cause))
    return { error: cause, line: engineErrorLine(cause) };
  const when =
    place.lastStep === undefined
      ? ''
      : place.lastStep > 0
        ? ` after step ${place.lastStep}`
        : ' before its first step';
  const outcome = `run '${place.runId}' is recorded as failed${when}; \`winnow run … --resume\` continues it from its last checkpoint`;
  const error =
    err instanceof TableWriteFailure
      ? translateEngineError(err.cause, { doing: 'writing', db: place.dbDir, table: err.table, outcome })
      : translateEngineError(err, { doing: 'the run', db: place.dbDir, outcome });
  return { error, line: error.message };
}

/**
 * Record the run as failed with its one-line reason (releasing the reserve first, so a full disk
 * has room for the record) and return the error to throw. A record that still
 * cannot be written is said in the line rather than hidden.
 */
export async function recordFailure(
  recorder: RunRecorder,
  err: unknown,
  place: RunFailurePlace,
  reserve: StorageReserve | null,
): Promise<unknown> {
  const failure = runFailure(err, place);
  reserve?.release();
  try {
    await recorder.mark('failed', 0, {
      error: failure.line,
      ...(place.lastStep !== undefined ? { steps: place.lastStep } : {}),
    });
    return failure.error;
  } catch (markErr) {
    const e = new WinnowError(
      `${failure.line}; the run's record in 'runs' could not be marked failed either (${engineErrorLine(markErr)})`,
    );
    e.cause = err;
    return e;
  }
}
