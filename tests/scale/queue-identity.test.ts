import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { removeQueuedRunJobs } from '../../src/scale/run-jobs.ts';
import type { RunRecord } from '../../src/store/run-table.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  readJobLines,
  startWinnow,
  startWorker,
  stopAll,
  writeConfig,
} from './scale-run-harness.ts';

// Rollout jobs are cached in Redis: a job added twice is found, and its result read instead of
// rolled out again. That cache must never hand a run the rollouts of another run that happened to
// have the same id: an --overwrite with a changed config, or a new run after `winnow gc`.

const noRedis = warnIfNoRedis();
const STEPS = 2;
const GROUPS = 3;
const JOBS = STEPS * GROUPS;

/** The test config with `explorer.temperature` set (a key that changes results). */
function withTemperature(file: string, t: number): string {
  const out = file.replace(/\.yaml$/, `-t${t}.yaml`);
  writeFileSync(
    out,
    readFileSync(file, 'utf8').replace('  repeat: 4\n', `  repeat: 4\n  temperature: ${t}\n`),
  );
  return out;
}

/** The rollout jobs of the queue still in Redis (BullMQ keeps each job in a hash `bull:<queue>:<id>`). */
async function queuedJobIds(port: number): Promise<string[]> {
  const client = new Redis(port, '127.0.0.1');
  try {
    const keys = await client.keys('bull:winnow-rollouts:r-*');
    return keys.filter((k) => k.split(':').length === 3).map((k) => k.split(':')[2]!);
  } finally {
    client.disconnect();
  }
}

describe.skipIf(noRedis)('queued rollout jobs belong to one run: its id, start and config', () => {
  const dir = tempDir('winnow-scale-identity-');
  let redis: TestRedis;
  const server = new AnswerServer(0);
  const procs: Proc[] = [];
  let base = '';

  beforeAll(async () => {
    redis = await startRedis();
    base = writeConfig(dir, await server.start(), STEPS, GROUPS);
  }, 60_000);
  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    await redis?.stop();
  });

  /** Run `args` queued with a fresh worker; the worker is stopped after. Returns the worker's pid, the requests the model got. */
  async function queuedRun(args: string[]): Promise<{ worker: number; requests: number; err: string }> {
    const w = await startWorker(redis.url, dir);
    procs.push(w);
    const before = server.requests;
    const run = startWinnow(['run', ...args, '--db', 'db', '--runs-dir', 'runs', '--queue', redis.url], dir);
    const code = await run.exited;
    await stopAll([w]);
    expect(code, run.err).toBe(0);
    return { worker: w.child.pid!, requests: server.requests - before, err: run.err };
  }

  it('--overwrite with only the temperature changed rolls every group out again, and the old jobs are gone', async () => {
    const first = await queuedRun([withTemperature(base, 0.7), '--run', 'o']);
    expect(first.requests).toBeGreaterThan(0);
    const oldJobs = readJobLines(join(dir, 'runs', 'o')).map((j) => j.jobId);
    expect(oldJobs).toHaveLength(JOBS);
    expect((await queuedJobIds(redis.port)).sort()).toEqual([...oldJobs].sort());

    const second = await queuedRun([withTemperature(base, 1.3), '--overwrite', 'o']);
    // Fresh rollouts: the model was asked as often as the first time, and every job was done by the new worker.
    expect(second.requests).toBe(first.requests);
    const jobs = readJobLines(join(dir, 'runs', 'o'));
    expect(jobs).toHaveLength(JOBS);
    expect(jobs.map((j) => j.worker.slice(j.worker.indexOf('pid ')))).toEqual(
      Array.from({ length: JOBS }, () => `pid ${second.worker}`),
    );
    expect(jobs.filter((j) => oldJobs.includes(j.jobId))).toEqual([]);
    // The overwritten run's jobs were removed from Redis; only the new run's remain.
    expect(second.err).toMatch(
      new RegExp(`removed ${JOBS} queued rollout job\\(s\\) of run 'o' from 127\\.0\\.0\\.1:${redis.port}`),
    );
    expect((await queuedJobIds(redis.port)).sort()).toEqual(jobs.map((j) => j.jobId).sort());
  }, 180_000);

  it('winnow gc removes the run and its queued jobs; a new run under the same id and config rolls out afresh', async () => {
    const config = withTemperature(base, 0.5);
    const first = await queuedRun([config, '--run', 'g']);
    const oldJobs = readJobLines(join(dir, 'runs', 'g')).map((j) => j.jobId);
    expect(oldJobs).toHaveLength(JOBS);

    const gc = startWinnow(['gc', 'g', '--yes', '--db', 'db'], dir);
    expect(await gc.exited, gc.err).toBe(0);
    expect(gc.out).toMatch(
      new RegExp(`removed ${JOBS} queued rollout job\\(s\\) of run 'g' from 127\\.0\\.0\\.1:${redis.port}`),
    );
    expect((await queuedJobIds(redis.port)).filter((id) => oldJobs.includes(id))).toEqual([]);

    const second = await queuedRun([config, '--run', 'g']);
    expect(second.requests).toBe(first.requests);
    const jobs = readJobLines(join(dir, 'runs', 'g'));
    expect(jobs.map((j) => j.worker.slice(j.worker.indexOf('pid ')))).toEqual(
      Array.from({ length: JOBS }, () => `pid ${second.worker}`),
    );
  }, 180_000);
});

describe("removing a queued run's jobs is best effort", () => {
  const record = (summary: unknown): RunRecord => ({
    runId: 'o',
    kind: 'rft',
    name: 'scale',
    configHash: 'abc',
    seed: 5,
    status: 'completed',
    startedAt: 1,
    finishedAt: 2,
    tableVersion: 0,
    summary: JSON.stringify(summary),
  });

  it('a Redis that cannot be reached gets one line naming it and saying the jobs are never reused', async () => {
    // Port 1 on loopback: nothing listens there.
    const line = await removeQueuedRunJobs(
      record({ queue: { server: 'redis://127.0.0.1:1/0', context: 'winnow:context:00112233aabbccdd' } }),
    );
    expect(line).toMatch(
      /^could not remove the queued jobs of run 'o' from Redis at 127\.0\.0\.1:1 \([^)]*\); they are never reused .* expire within 7 days$/,
    );
    expect(line).not.toContain('\n');
  });

  it('a run that was not queued has nothing to remove (no line)', async () => {
    expect(await removeQueuedRunJobs(record({ runDir: '/x' }))).toBeUndefined();
    expect(await removeQueuedRunJobs(record({ queue: { server: 'nope', context: 'x' } }))).toBeUndefined();
  });
});
