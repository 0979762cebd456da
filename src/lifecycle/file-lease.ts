import { createHash, randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describeHolder, LeaseHeldError, type LeaseSubject } from '../core/lease.ts';
import { isDatabaseUri } from '../store/connection.ts';

/** The folder under a local database that holds the single-process runs' lease files. */
export const LEASE_DIR = '.winnow-leases';

/** Default TTL of a file lease; `WINNOW_LEASE_TTL_MS` overrides it. */
export const DEFAULT_FILE_LEASE_TTL_MS = 60_000;

/** What a lease file holds. `released` marks a lease given back (the file stays: see FileLease). */
export interface FileLeaseRecord {
  holder: string;
  runId: string;
  /** What holds it ('winnow run', 'winnow run --queue', 'winnow serve'); absent in older files. */
  mode?: string;
  startedAt: string;
  heartbeatAt: string;
  released?: true;
}

export interface FileLeaseOptions {
  ttlMs?: number;
  heartbeatMs?: number;
  /** Injected for tests: is this pid alive on this host? */
  alive?: (pid: number) => boolean;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

interface Slot {
  dir: string;
  base: string;
  label: string;
}

/** The highest generation of a lease file, and its record (undefined when unreadable or absent). */
function current(slot: Slot): { gen: number; record: FileLeaseRecord | undefined; stale: number[] } {
  const gens: number[] = [];
  for (const f of readdirSync(slot.dir)) {
    const m = f.startsWith(`${slot.base}.`) ? /^\.(\d+)\.json$/.exec(f.slice(slot.base.length)) : null;
    if (m) gens.push(Number(m[1]));
  }
  gens.sort((a, b) => a - b);
  const gen = gens.at(-1) ?? 0;
  let record: FileLeaseRecord | undefined;
  if (gen > 0) {
    try {
      record = JSON.parse(
        readFileSync(join(slot.dir, `${slot.base}.${gen}.json`), 'utf8'),
      ) as FileLeaseRecord;
    } catch {
      record = undefined;
    }
  }
  return { gen, record, stale: gens.slice(0, -1) };
}

/** Whether a lease record no longer protects anything: released, expired, or its holder's pid is gone on this host. */
export function leaseIsFree(
  r: FileLeaseRecord | undefined,
  ttlMs: number,
  now = Date.now(),
  alive: (pid: number) => boolean = pidAlive,
): boolean {
  if (!r || r.released) return true;
  if (now - Date.parse(r.heartbeatAt) > ttlMs || Number.isNaN(Date.parse(r.heartbeatAt))) return true;
  const [pid, host] = r.holder.split('@');
  return host === hostname() && Number(pid) > 0 && !alive(Number(pid));
}

const describe = (r: FileLeaseRecord): string => describeHolder(r);

/**
 * A lease on a run and its buffer (or task) table for single-process runs on a local database
 * folder, held in files under `<dbDir>/.winnow-leases/`. Each key (run id, table) has one file
 * `<kind>-<hash>.<generation>.json`; the highest generation is the lease. Taking a free key creates
 * the next generation with `link` (exclusive, like `O_EXCL`), so of two takers exactly one wins and the other sees
 * the winner's file; a holder's heartbeat rewrites its file (temp + rename) every ttl/3, and a
 * release marks it `released` rather than deleting it (generations only grow, so a taker that read
 * an older state can never create a file the winner already made). A key is free when released,
 * when its heartbeat is older than the TTL, or when its holder is a dead pid on this host (a
 * SIGKILLed run is resumable at once). All or nothing: a held table gives the run key back.
 */
export class FileLease {
  readonly holder: string;
  private timer: NodeJS.Timeout | undefined;
  private readonly files: Array<{ slot: Slot; gen: number }> = [];
  private record: FileLeaseRecord;
  private released = false;
  private readonly onExit = () => this.releaseSync();

  private constructor(record: FileLeaseRecord) {
    this.record = record;
    this.holder = record.holder;
  }

  /** Remote databases (s3://, memory://…) take no file lease: undefined. */
  static acquire(subject: LeaseSubject, opts: FileLeaseOptions = {}): FileLease | undefined {
    if (isDatabaseUri(subject.dbDir)) return undefined;
    const ttlMs = opts.ttlMs ?? (Number(process.env.WINNOW_LEASE_TTL_MS) || DEFAULT_FILE_LEASE_TTL_MS);
    const alive = opts.alive ?? pidAlive;
    const dir = join(subject.dbDir, LEASE_DIR);
    mkdirSync(dir, { recursive: true });
    const now = new Date().toISOString();
    const lease = new FileLease({
      holder: `${process.pid}@${hostname()}`,
      runId: subject.runId,
      ...(subject.mode ? { mode: subject.mode } : {}),
      startedAt: now,
      heartbeatAt: now,
    });
    const hash = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);
    const slots: Slot[] = [
      { dir, base: `run-${hash(subject.runId)}`, label: `run '${subject.runId}'` },
      {
        dir,
        base: `table-${hash(subject.bufferTable)}`,
        label: `${subject.tableKind ?? 'buffer table'} '${subject.bufferTable}'`,
      },
    ];
    try {
      for (const slot of slots) {
        const { gen, record, stale } = current(slot);
        if (!leaseIsFree(record, ttlMs, Date.now(), alive))
          throw new LeaseHeldError(slot.label, describe(record!), ttlMs);
        const file = join(dir, `${slot.base}.${gen + 1}.json`);
        // Written whole to a temp file, then linked in: link fails on an existing name (like `wx`),
        // and a reader never sees a half-written lease.
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        writeFileSync(tmp, `${JSON.stringify(lease.record)}\n`);
        try {
          linkSync(tmp, file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          const won = current(slot).record;
          throw new LeaseHeldError(slot.label, won ? describe(won) : 'another process', ttlMs);
        } finally {
          unlinkSync(tmp);
        }
        lease.files.push({ slot, gen: gen + 1 });
        for (const g of [...stale, gen].filter((g) => g > 0))
          try {
            unlinkSync(join(dir, `${slot.base}.${g}.json`));
          } catch {
            // already gone
          }
      }
    } catch (err) {
      lease.releaseSync();
      throw err;
    }
    process.once('exit', lease.onExit);
    const every = opts.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3));
    lease.timer = setInterval(() => lease.beat(), every);
    lease.timer.unref();
    return lease;
  }

  /** Rewrite heartbeatAt in each file that is still ours (a key another process took is left alone). */
  beat(): void {
    if (this.released) return;
    this.record = { ...this.record, heartbeatAt: new Date().toISOString() };
    this.rewrite(this.record);
  }

  private rewrite(record: FileLeaseRecord): void {
    for (const { slot, gen } of this.files) {
      try {
        if (current(slot).gen !== gen) continue;
        const file = join(slot.dir, `${slot.base}.${gen}.json`);
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        writeFileSync(tmp, `${JSON.stringify(record)}\n`);
        renameSync(tmp, file);
      } catch {
        // a vanished folder or file: nothing of ours left to keep
      }
    }
  }

  /** Give the lease back: each file still ours is marked released (sync, so it also runs on exit). */
  releaseSync(): void {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    process.removeListener('exit', this.onExit);
    this.rewrite({ ...this.record, released: true });
  }
}
