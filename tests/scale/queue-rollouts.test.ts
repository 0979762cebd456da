import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { ReplayRatioLimiter } from '../../src/buffer/rate-limiter.ts';
import type { Task } from '../../src/core/task.ts';
import { QueueRollouts } from '../../src/scale/queue-rollouts.ts';
import { connectionOf, parseQueueUrl } from '../../src/scale/queue-url.ts';
import { ROLLOUT_QUEUE, type RolloutJob } from '../../src/scale/rollout-job.ts';
import { encodeWire } from '../../src/scale/wire.ts';

const noRedis = warnIfNoRedis();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const task = (i: number): Task =>
  ({
    id: `t${i}`,
    taskset: 'arith',
    prompt: `${i}+1=`,
    answer: String(i + 1),
    features: {},
    meta: {},
  }) as Task;

describe.skipIf(noRedis)('QueueRollouts: the coordinator side of rollout jobs', () => {
  let redis: TestRedis;
  let queue: Queue;
  let events: QueueEvents;
  let worker: Worker;
  const runDir = mkdtempSync(join(tmpdir(), 'winnow-qr-'));
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;

  beforeAll(async () => {
    redis = await startRedis();
    const connection = connectionOf(parseQueueUrl(redis.url));
    queue = new Queue(ROLLOUT_QUEUE, { connection });
    events = new QueueEvents(ROLLOUT_QUEUE, { connection });
    await events.waitUntilReady();
    // A stand-in worker: later tasks finish first; task 'bad' always throws.
    worker = new Worker(
      ROLLOUT_QUEUE,
      async (job: Job<RolloutJob>) => {
        const { task: t, step } = job.data;
        calls.push(`${step}:${t.id}`);
        active++;
        maxActive = Math.max(maxActive, active);
        try {
          if (t.id === 'bad') throw new Error('model server said no');
          await sleep(150 - Number(t.id.slice(1)) * 10);
          const experiences = [0, 1].map((r) => ({
            id: `${step}-${t.id}-${r}`,
            taskId: t.id,
            taskset: 'arith',
            groupId: `${step}-${t.id}`,
            runIndex: r,
            modelVersion: 0,
            exploreStep: step,
            response: 'x',
            reward: r === 0 ? Number.NaN : 1,
          }));
          return encodeWire({
            experiences,
            failures: [],
            metrics: { timeouts: 0, retries: 0, emptyResponses: 0 },
            worker: 'stand-in',
          });
        } finally {
          active--;
        }
      },
      { connection, concurrency: 8 },
    );
    await worker.waitUntilReady();
  });
  afterAll(async () => {
    await worker?.close();
    await events?.close();
    await queue?.close();
    await redis?.stop();
  });

  const options = (maxInFlight: number) => ({
    queue,
    events,
    context: 'winnow:context:test',
    runId: 'r',
    runDir,
    maxInFlight,
    log: () => undefined,
  });
  const executor = (maxInFlight: number) => new QueueRollouts(options(maxInFlight));

  it('returns groups in task order, whatever order they finish in, and records every job', async () => {
    const r = await executor(8).explore([task(1), task(2), task(3), task(4)], 1, 0);
    expect(r.experiences.map((e) => e.id)).toEqual([
      '1-t1-0',
      '1-t1-1',
      '1-t2-0',
      '1-t2-1',
      '1-t3-0',
      '1-t3-1',
      '1-t4-0',
      '1-t4-1',
    ]);
    expect(Number.isNaN(r.experiences[0]!.reward)).toBe(true);
    expect(r.metrics).toMatchObject({ tasks: 4, rollouts: 8, failedGroups: 0 });
    const lines = readFileSync(join(runDir, 'scale-jobs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.taskId, l.worker, l.reclaimed, l.experiences])).toEqual([
      ['t1', 'stand-in', 0, 2],
      ['t2', 'stand-in', 0, 2],
      ['t3', 'stand-in', 0, 2],
      ['t4', 'stand-in', 0, 2],
    ]);
  });

  it('a step submitted again (a resumed coordinator) reads the finished jobs instead of rolling out again', async () => {
    const before = calls.length;
    const again = await executor(8).explore([task(1), task(2), task(3), task(4)], 1, 0);
    expect(calls.length).toBe(before);
    expect(again.experiences.map((e) => e.id)).toHaveLength(8);
    // Another step is another job.
    await executor(8).explore([task(1)], 2, 0);
    expect(calls.slice(before)).toEqual(['2:t1']);
  });

  it('keeps at most maxInFlight jobs of a step in the queue at once', async () => {
    maxActive = 0;
    await executor(2).explore([1, 2, 3, 4, 5].map(task), 3, 0);
    expect(maxActive).toBe(2);
  });

  it('backpressure: jobs running never exceed the groups the buffer’s rate limiter admits, asked again per job', async () => {
    // Band: inserted + k − sampled ≤ 4, two experiences a group: 2 groups at once.
    const limiter = new ReplayRatioLimiter({
      samplesPerInsert: 1,
      minSizeToSample: 0,
      tolerance: 0.1,
      errorBuffer: 4,
      insertBatch: 8,
    });
    const ex = new QueueRollouts({ ...options(8), groupSize: 2 });
    ex.attach({ canInsert: (k) => limiter.canInsert(k) });
    maxActive = 0;
    const r = await ex.explore([1, 2, 3, 4, 5, 6].map(task), 5, 0);
    expect(r.experiences).toHaveLength(12);
    expect(maxActive).toBe(2);
    const a = ex.admissions[0]!;
    expect([a.bound, a.maxRunning]).toEqual([2, 2]);
    expect(a.waits.map((w) => w.taskId)[0]).toBe('t3');
    expect(a.waits.every((w) => w.bound === 2 && !w.refused && w.running === 2)).toBe(true);
    const lines = readFileSync(join(runDir, 'scale-backpressure.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual(a);

    // 4 inserted, none sampled: the limiter refuses even one group, so one job at a time, until
    // the trainer samples 8 (as in async mode) and the band admits 4 groups again.
    limiter.onInsert(4);
    expect(limiter.canInsert(2)).toBe(false);
    maxActive = 0;
    const sampled = sleep(250).then(() => limiter.onSample(8));
    await ex.explore([1, 2, 3, 4, 5, 6, 7, 8].map(task), 6, 0);
    await sampled;
    const b = ex.admissions[1]!;
    expect(b.bound).toBe(1);
    expect(b.waits[0]).toMatchObject({ taskId: 't2', running: 1, bound: 1, refused: true });
    expect(b.waits.some((w) => w.bound === 4 && !w.refused)).toBe(true);
    expect(b.maxRunning).toBeGreaterThan(1);
    expect(b.maxRunning).toBeLessThanOrEqual(4);
    expect(maxActive).toBe(b.maxRunning);
  });

  it('a group whose job fails on every attempt becomes a recorded failure; the rest of the step goes on', async () => {
    const bad = { ...task(9), id: 'bad' } as Task;
    const r = await executor(8).explore([task(1), bad, task(2)], 4, 0);
    expect(r.experiences.map((e) => e.taskId)).toEqual(['t1', 't1', 't2', 't2']);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toMatchObject({ taskId: 'bad', kind: 'error', groupId: 's4:bad' });
    expect(r.failures[0]!.reason).toMatch(/^rollout job r-test-4-[0-9a-f]{20}: model server said no$/);
    expect(calls.filter((c) => c === '4:bad')).toHaveLength(3);
  }, 20_000);
});
