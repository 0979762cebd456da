import { WinnowError } from './errors.ts';

// The lease contract every holder shares: the Redis lease of a queued run (src/scale/lease.ts) and
// the file lease of a single-process run (src/lifecycle/file-lease.ts).

/** Another live process owns the run or table. Exit 2: the start was refused, nothing was written. */
export class LeaseHeldError extends WinnowError {
  override name = 'LeaseHeldError';
  readonly exitCode = 2;
  readonly holder: string;
  constructor(what: string, holder: string, ttlMs: number) {
    super(
      `${what} is owned by ${holder}; nothing was written (stop that process, or wait until its lease expires: ${Math.round(ttlMs / 1000)} s after its last heartbeat, then --resume)`,
    );
    this.holder = holder;
  }
}

/** The run's lease was lost (the heartbeat failed or another process took it): stop before writing more. */
export class LeaseLostError extends WinnowError {
  override name = 'LeaseLostError';
}

/** What a run owns: its id and its buffer table, both scoped to the database folder they live in. */
export interface LeaseSubject {
  dbDir: string;
  runId: string;
  bufferTable: string;
  /** How errors name the table (default 'buffer table'; a task pipeline's output: 'task table'). */
  tableKind?: string;
  /** What the holder is, for the refusal a second writer gets: 'winnow run', 'winnow run --queue', 'winnow serve'. */
  mode?: string;
}

/** How a refusal names a lease's holder: `<pid>@<host> (<mode>, run <id>, since <time>)`. */
export function describeHolder(h: {
  holder: string;
  mode?: string | undefined;
  runId: string;
  startedAt: string;
}): string {
  return `${h.holder} (${h.mode ? `${h.mode}, ` : ''}run ${h.runId}, since ${h.startedAt})`;
}
