import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { tableToIpcStream } from '../../src/io/arrow-ipc.ts';
import { PIPELINE_QUEUE, type ShardResult, shardRowsKey } from '../../src/scale/pipeline-job.ts';
import { connectionOf, parseQueueUrl } from '../../src/scale/queue-url.ts';
import { asideRecordsTable, frameOfSections } from '../../src/scale/shard-frame.ts';
import { TaskRowsEncoder } from '../../src/store/task-encoder.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import { startWinnow, waitFor } from './scale-run-harness.ts';

// A worker that answers shard jobs with something the coordinator cannot land (another version, a
// bug, a corrupted value in Redis): `winnow run --queue` must fail with one line naming the shard
// and the worker — never a stack trace — and leave nothing in the table.
const noRedis = warnIfNoRedis();
const dir = tempDir('winnow-badshard-');
const input = join(dir, 'rows.jsonl');
writeFileSync(
  input,
  `${Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: `r${i}`, question: `question number ${i} with words`, answer: String(i) })).join('\n')}\n`,
);
const config = join(dir, 'pipeline.yaml');
writeFileSync(
  config,
  [
    'name: bad-shard',
    'kind: tasks',
    `input: { path: ${input} }`,
    'mapping: { id: id, prompt: question, answer: answer, taskset: s }',
    'operators: [{ op: normalize_whitespace }, { op: exact_dedup }]',
    'output: { report: false }',
    '',
  ].join('\n'),
);

/**
 * A WNWSHRD2 frame of the 40 rows whose kept section loses its last 16 bytes (its end-of-stream
 * marker and the end of the record batch's body), the sections' lengths adjusted to match.
 */
function cutShortFrame(): Buffer {
  const encoder = new TaskRowsEncoder('run-x', 40);
  for (let i = 0; i < 40; i++)
    encoder.push({
      id: `r${i}`,
      taskset: 's',
      prompt: `question number ${i} with words`,
      features: {},
      meta: {},
    });
  const full = tableToIpcStream(encoder.finish(0));
  const kept = full.subarray(0, full.byteLength - 16);
  const aside = tableToIpcStream(new TaskRowsEncoder('run-x', 1).finish(0));
  const sidecar = tableToIpcStream(
    new arrow.Table({
      key: arrow.makeVector(new Float64Array(40)),
      check: arrow.makeVector(new Uint32Array(40)),
      aside: arrow.makeVector(new Uint8Array(40)),
    }),
  );
  const records = tableToIpcStream(asideRecordsTable(new TaskRowsEncoder('run-x', 1).finish(0)));
  return frameOfSections([kept, aside, records, sidecar]);
}

/** What the rogue worker answers for a job: its result, after storing `frame` (if any) under the job's key. */
type Answer = (job: Job) => { frame: Buffer | null; result: unknown };

describe.skipIf(noRedis)('a shard the coordinator cannot land', () => {
  let redis: TestRedis;
  let client: Redis;
  let answer: Answer = () => ({ frame: null, result: {} });
  let rogue: Worker;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.port, '127.0.0.1');
    rogue = new Worker(
      PIPELINE_QUEUE,
      async (job) => {
        const { frame, result } = answer(job);
        if (frame) await client.set(shardRowsKey(job.id!), frame);
        return result;
      },
      { connection: connectionOf(parseQueueUrl(redis.url)) },
    );
    await rogue.waitUntilReady();
  }, 60_000);

  afterAll(async () => {
    await rogue?.close();
    client?.disconnect();
    await redis?.stop();
  });

  const batch = {
    records: 40,
    readRejected: [],
    mapRejected: [],
    mapMs: 0,
    tasksJson: '[]',
    tasks: 40,
    rejected: [],
    exact: null,
    warnings: [],
  };

  async function runQueued(name: string): Promise<{ code: number; err: string; rows: number }> {
    const db = join(dir, `db-${name}`);
    const p = startWinnow(['run', config, '--queue', redis.url, '--db', db], dir);
    const code = await p.exited;
    await waitFor(() => p.child.stderr?.readableEnded !== false, 10_000, 'stderr to close');
    const rows = await (await TaskStore.open(db)).count();
    return { code, err: p.err, rows };
  }

  it.each<[string, Answer, RegExp]>([
    [
      'a frame that is not a frame',
      (job) => ({
        frame: Buffer.from('not arrow at all'),
        result: {
          batches: [batch],
          metrics: [],
          worker: 'rogue-1',
          frame: { key: shardRowsKey(job.id!), rows: 40, exact: true, tasksets: null },
        } satisfies Partial<ShardResult>,
      }),
      /^error: shard 0 \(.*rows\.jsonl, job p-0-[0-9a-f]+, from rogue-1\): its encoded rows cannot be landed: not a shard frame \(no WNWSHRD2 header\) \(run the same winnow version on every machine\)$/,
    ],
    [
      'a frame whose kept rows are cut short (their bytes would go to LanceDB as they are)',
      (job) => ({
        frame: cutShortFrame(),
        result: {
          batches: [batch],
          metrics: [],
          worker: 'rogue-4',
          frame: { key: shardRowsKey(job.id!), rows: 40, exact: true, tasksets: null },
        } satisfies Partial<ShardResult>,
      }),
      /^error: shard 0 \(.*rows\.jsonl, job p-0-[0-9a-f]+, from rogue-4\): its encoded rows cannot be landed: its kept rows are not an Arrow IPC stream \(message 1's body runs past the end \(\d+ bytes\)\) \(run the same winnow version on every machine\)$/,
    ],
    [
      'a frame missing from Redis',
      (job) => ({
        frame: null,
        result: {
          batches: [batch],
          metrics: [],
          worker: 'rogue-2',
          frame: { key: `${shardRowsKey(job.id!)}-gone`, rows: 40, exact: true, tasksets: null },
        },
      }),
      /^error: shard 0 \(.*, from rogue-2\): its encoded rows are missing from Redis \(winnow:pipeline-rows:p-0-[0-9a-f]+-gone\)$/,
    ],
    [
      'a result of another shape',
      () => ({ frame: null, result: { rows: [1, 2, 3] } }),
      /^error: shard 0 \(job p-0-[0-9a-f]+\): its result is malformed \(batches: .*; run the same winnow version on every machine\)$/,
    ],
    [
      'rows as JSON where encoded rows were asked for',
      () => ({ frame: null, result: { batches: [batch], metrics: [], worker: 'rogue-3' } }),
      /^error: shard 0 \(.*, from rogue-3\): the worker sent its rows as JSON where the run asked for encoded rows/,
    ],
  ])(
    '%s: exit 1, one line naming the shard and the worker, no stack, nothing written',
    async (name, a, line) => {
      answer = a;
      const r = await runQueued(name.replace(/\W+/g, '-'));
      const errors = r.err.split('\n').filter((l) => l.startsWith('error:'));
      expect(r.code).toBe(1);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(line);
      expect(r.err).not.toMatch(/^\s+at /m);
      expect(r.rows).toBe(0);
    },
    120_000,
  );
});
