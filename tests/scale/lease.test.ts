import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { LeaseHeldError, LeaseLostError, leaseKeys, RunLease } from '../../src/scale/lease.ts';

const noRedis = warnIfNoRedis();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(noRedis)('run leases in Redis', () => {
  let server: TestRedis;
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    server = await startRedis();
    a = new Redis(server.port, '127.0.0.1');
    b = new Redis(server.port, '127.0.0.1');
  });
  afterAll(async () => {
    a?.disconnect();
    b?.disconnect();
    await server?.stop();
  });

  const subject = { dbDir: '/data/db', runId: 'demo-1', bufferTable: 'demo-1_experiences' };

  it('refuses a second holder of the run, naming the first, and takes nothing', async () => {
    const first = await RunLease.acquire(a, subject, { ttlMs: 5_000 });
    const err = await RunLease.acquire(b, subject, { ttlMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).exitCode).toBe(2);
    expect((err as LeaseHeldError).holder).toBe(first.holder);
    expect((err as Error).message).toContain(`run 'demo-1' is owned by ${first.holder}`);
    // The same table under another run id is refused too; the refused run left no key of its own.
    const other = { ...subject, runId: 'demo-2' };
    const err2 = await RunLease.acquire(b, other, { ttlMs: 5_000 }).catch((e: unknown) => e);
    expect((err2 as Error).message).toContain("buffer table 'demo-1_experiences' is owned by");
    expect(await a.exists(leaseKeys(other).run)).toBe(0);
    await first.release();
    expect(await a.exists(leaseKeys(subject).run, leaseKeys(subject).table)).toBe(0);
  });

  it("keeps a live holder's lease past its TTL by heartbeat; a dead holder's lapses and another takes over", async () => {
    const live = await RunLease.acquire(a, subject, { ttlMs: 600, heartbeatMs: 150 });
    await sleep(1_200);
    await expect(RunLease.acquire(b, subject, { ttlMs: 600 })).rejects.toBeInstanceOf(LeaseHeldError);
    // A crash: the heartbeat stops and nothing is released.
    (live as unknown as { timer: NodeJS.Timeout }).timer.close();
    await sleep(800);
    const next = await RunLease.acquire(b, subject, { ttlMs: 600 });
    expect(next.holder).not.toBe('');
    expect(await b.pttl(leaseKeys(subject).run)).toBeGreaterThan(0);
    // The old holder's release must not drop the new holder's lease.
    await live.release();
    expect(await b.get(leaseKeys(subject).run)).toBe(next.token);
    await next.release();
  });

  it('a holder whose keys were taken notices at its next heartbeat and refuses to go on', async () => {
    const lost: string[] = [];
    const lease = await RunLease.acquire(a, subject, {
      ttlMs: 2_000,
      heartbeatMs: 100,
      onLost: (w) => lost.push(w),
    });
    await b.set(leaseKeys(subject).run, 'someone else');
    await sleep(300);
    expect(lost).toHaveLength(1);
    expect(() => lease.check()).toThrow(LeaseLostError);
    await lease.release();
    expect(await b.get(leaseKeys(subject).run)).toBe('someone else');
    await b.del(leaseKeys(subject).run, leaseKeys(subject).table);
  });
});
