import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { leaseKeys } from '../../src/scale/lease.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  type RunOutcome,
  readJobLines,
  readOutcome,
  settledAfterStop,
  snapshot,
  startWinnow,
  startWorker,
  stopAll,
  waitFor,
  writeConfig,
} from './scale-run-harness.ts';

const noRedis = warnIfNoRedis();
const STEPS = 4;
const GROUPS = 6;

describe.skipIf(noRedis)('winnow run --queue with worker processes (Redis + BullMQ)', () => {
  const dir = tempDir('winnow-scale-e2e-');
  let redis: TestRedis;
  const server = new AnswerServer(60);
  let config = '';
  let reference: RunOutcome;
  const procs: Proc[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    config = writeConfig(dir, await server.start(), STEPS, GROUPS);
    const ref = startWinnow(
      ['run', config, '--db', 'db-ref', '--runs-dir', 'runs', '--run', 'ref', '--quiet'],
      dir,
    );
    expect(await ref.exited, ref.err).toBe(0);
    reference = await readOutcome(join(dir, 'db-ref'), join(dir, 'runs', 'ref'), 'ref');
  }, 60_000);
  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    await redis?.stop();
  });

  it('with 3 workers: the same step records, buffer rows and selector state as the single-process run', async () => {
    expect(reference.steps).toHaveLength(STEPS);
    expect(reference.rows).toHaveLength(STEPS * GROUPS * 4);
    const workers = await Promise.all([1, 2, 3].map(() => startWorker(redis.url, dir)));
    procs.push(...workers);
    const run = startWinnow(
      ['run', config, '--db', 'db-q', '--runs-dir', 'runs', '--run', 'q', '--queue', redis.url],
      dir,
    );
    expect(await run.exited, run.err).toBe(0);
    const got = await readOutcome(join(dir, 'db-q'), join(dir, 'runs', 'q'), 'q');
    expect(got.steps).toEqual(reference.steps);
    expect(got.rows).toEqual(reference.rows);
    expect(got.selector).toEqual(reference.selector);
    // Every group was one job, done by one of the three workers, none reclaimed.
    const jobs = readJobLines(join(dir, 'runs', 'q'));
    expect(jobs).toHaveLength(STEPS * GROUPS);
    const pids = new Set(workers.map((w) => `pid ${w.child.pid}`));
    for (const j of jobs) expect(pids.has(j.worker.slice(j.worker.indexOf('pid ')))).toBe(true);
    expect(jobs.filter((j) => j.reclaimed > 0)).toEqual([]);
    // The coordinator said who worked on each step.
    expect(run.err).toContain('step 1: 6 rollout job(s) on');
  }, 60_000);

  it('a second coordinator on a live run is refused: exit 2 naming the holder, nothing written', async () => {
    const base = ['run', config, '--db', 'db-k', '--runs-dir', 'runs', '--run', 'k', '--queue', redis.url];
    const first = startWinnow([...base, '--lease-ttl', '120'], dir);
    procs.push(first);
    await waitFor(
      () => /step 2: \d+ rollout job/.test(first.err),
      60_000,
      'the first coordinator to finish step 2',
    );
    // Frozen, so that the folders stay still while the second one tries; its lease keeps counting down.
    first.child.kill('SIGSTOP');
    const before = await settledAfterStop(first.child.pid!, dir);
    const second = startWinnow([...base, '--resume'], dir);
    expect(await second.exited, second.err).toBe(2);
    expect(second.err).toMatch(
      new RegExp(
        `^error: run 'k' is owned by ${first.child.pid}@\\S+ \\(winnow run --queue, run k, since `,
        'm',
      ),
    );
    expect(second.err).toContain('nothing was written');
    expect(snapshot(dir)).toEqual(before);
    first.child.kill('SIGCONT');
    expect(await first.exited, first.err).toBe(0);
    const got = await readOutcome(join(dir, 'db-k'), join(dir, 'runs', 'k'), 'k');
    expect(got.steps).toEqual(reference.steps);
    expect(got.rows).toEqual(reference.rows);
  }, 120_000);

  it("a SIGKILLed coordinator's lease lapses after its TTL, and --resume finishes the run as the uninterrupted one", async () => {
    const base = ['run', config, '--db', 'db-c', '--runs-dir', 'runs', '--run', 'c', '--queue', redis.url];
    const first = startWinnow([...base, '--lease-ttl', '3'], dir);
    procs.push(first);
    await waitFor(
      () => /step 2: \d+ rollout job/.test(first.err),
      60_000,
      'the coordinator to finish step 2',
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const client = new Redis(redis.port, '127.0.0.1');
    const key = leaseKeys({ dbDir: join(dir, 'db-c'), runId: 'c', bufferTable: 'c_experiences' }).run;
    const held = await client.get(key);
    const t0 = Date.now();
    while ((await client.exists(key)) === 1) await new Promise((r) => setTimeout(r, 50));
    client.disconnect();
    // The dead holder's lease was there after the kill (unless the machine was slower than its TTL) and went by itself.
    if (held !== null) expect(held).toContain(`${first.child.pid}@`);
    expect(Date.now() - t0).toBeLessThan(3_500);
    const resumed = startWinnow([...base, '--resume', '--quiet'], dir);
    expect(await resumed.exited, resumed.err).toBe(0);
    const got = await readOutcome(join(dir, 'db-c'), join(dir, 'runs', 'c'), 'c');
    expect(got.steps).toEqual(reference.steps);
    expect(got.rows).toEqual(reference.rows);
    expect(got.selector).toEqual(reference.selector);
  }, 120_000);
});
