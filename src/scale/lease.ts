import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { describeHolder, LeaseHeldError, LeaseLostError, type LeaseSubject } from '../core/lease.ts';
import { databaseKey } from '../store/connection.ts';

export { LeaseHeldError, LeaseLostError, type LeaseSubject } from '../core/lease.ts';

/** Redis keys of the leases on a run and its table (a database is named by a hash of its absolute path, or of its URI). */
export function leaseKeys(s: LeaseSubject): { run: string; table: string } {
  const db = createHash('sha1').update(databaseKey(s.dbDir)).digest('hex').slice(0, 12);
  return { run: `winnow:lease:${db}:run:${s.runId}`, table: `winnow:lease:${db}:table:${s.bufferTable}` };
}

// Extend or delete a key only while it still holds our token (never another holder's lease).
const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface LeaseOptions {
  /** The lease lapses this long after the last heartbeat (a crashed holder's lease expires). */
  ttlMs: number;
  /** Heartbeat period; default a third of the TTL. */
  heartbeatMs?: number;
  onLost?: (reason: string) => void;
}

/**
 * A lease on a run and its buffer table, held in Redis: `SET NX PX` takes each key, a heartbeat
 * extends them while the holder lives, and both lapse `ttlMs` after a crash. Taking is all or
 * nothing: if either key is held, what was taken is given back and LeaseHeldError names the holder.
 */
export class RunLease {
  readonly holder: string;
  private timer: NodeJS.Timeout | undefined;
  private lost: string | undefined;
  private readonly redis: Redis;
  private readonly keys: string[];
  readonly token: string;
  private readonly opts: LeaseOptions;
  private constructor(redis: Redis, keys: string[], token: string, opts: LeaseOptions) {
    this.redis = redis;
    this.keys = keys;
    this.token = token;
    this.opts = opts;
    this.holder = token.split(' #')[0]!;
  }

  static async acquire(redis: Redis, subject: LeaseSubject, opts: LeaseOptions): Promise<RunLease> {
    const k = leaseKeys(subject);
    const holder = describeHolder({
      holder: `${process.pid}@${hostname()}`,
      mode: subject.mode ?? 'winnow run --queue',
      runId: subject.runId,
      startedAt: new Date().toISOString(),
    });
    const token = `${holder} #${Math.random().toString(36).slice(2)}`;
    const taken: string[] = [];
    const what: Array<[string, string]> = [
      [k.run, `run '${subject.runId}'`],
      [k.table, `${subject.tableKind ?? 'buffer table'} '${subject.bufferTable}'`],
    ];
    for (const [key, label] of what) {
      const ok = await redis.set(key, token, 'PX', opts.ttlMs, 'NX');
      if (ok === 'OK') {
        taken.push(key);
        continue;
      }
      const current = (await redis.get(key)) ?? 'a process whose lease just lapsed';
      for (const t of taken) await redis.eval(RELEASE, 1, t, token);
      throw new LeaseHeldError(label, current.split(' #')[0]!, opts.ttlMs);
    }
    const lease = new RunLease(redis, taken, token, opts);
    lease.startHeartbeat();
    return lease;
  }

  /** Why the lease was lost, or undefined while it is held. */
  get lostReason(): string | undefined {
    return this.lost;
  }

  /** Throw if the lease is gone: the caller must not write under a lease another process may hold. */
  check(): void {
    if (this.lost)
      throw new LeaseLostError(`the run's lease was lost (${this.lost}); stopping before writing more`);
  }

  private startHeartbeat(): void {
    const every = this.opts.heartbeatMs ?? Math.max(100, Math.floor(this.opts.ttlMs / 3));
    this.timer = setInterval(() => void this.beat(), every);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    if (this.lost) return;
    try {
      for (const key of this.keys) {
        const ok = await this.redis.eval(EXTEND, 1, key, this.token, String(this.opts.ttlMs));
        if (ok !== 1) throw new Error(`${key} is no longer ours`);
      }
    } catch (err) {
      this.lost = (err as Error).message;
      clearInterval(this.timer);
      this.opts.onLost?.(this.lost);
    }
  }

  /** Stop the heartbeat without giving the keys back (their server is gone; they lapse by themselves). */
  stop(): void {
    clearInterval(this.timer);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    for (const key of this.keys) await this.redis.eval(RELEASE, 1, key, this.token).catch(() => undefined);
  }
}
