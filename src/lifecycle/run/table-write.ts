import { WinnowError } from '../../core/errors.ts';

/**
 * A write to one of the run's tables failed in the engine (a full disk, say). It carries the
 * table's name so the run's fatal-error line can name it (src/lifecycle/run/rft-failure.ts); the
 * engine's own message rarely does.
 */
export class TableWriteFailure extends Error {
  override name = 'TableWriteFailure';
  readonly table: string;
  constructor(table: string, cause: unknown) {
    super(`writing table '${table}' failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.table = table;
    this.cause = cause;
  }
}

/** Run `write`, naming `table` on an engine failure (our own errors pass through as they are). */
export async function writingTable<T>(table: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof WinnowError || err instanceof TableWriteFailure) throw err;
    throw new TableWriteFailure(table, err);
  }
}
