import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { startS3, type TestS3, warnIfNoS3 } from '../../bench/scale-s3.ts';
import { Rng } from '../../src/core/rng.ts';
import { closeAllConnections, setStorageOptions } from '../../src/store/connection.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  readOutcome,
  startWinnow,
  startWorker,
  stopAll,
  waitFor,
  writeConfig,
} from './scale-run-harness.ts';

// Multi-machine runs keep their tables on object storage: a queued ingest and a queued RFT run
// against a local S3-compatible server (moto, started and stopped here) must give the same tables
// as the same runs on a local folder. Credentials come from the environment, as on a real machine.
const noRedis = warnIfNoRedis();
const noS3 = warnIfNoS3();

const dir = tempDir('winnow-s3-');
const WORDS = 'apple basket dozen eggs farmer garden hours invoice market number orange price'.split(' ');
const rng = new Rng(17);
const lines: string[] = [];
for (let i = 0; i < 1500; i++) {
  const r = rng.float();
  const q =
    r < 0.05 && i > 0
      ? 'apple basket dozen eggs farmer garden'
      : r < 0.08
        ? 'too short'
        : Array.from({ length: 8 + rng.int(20) }, () => WORDS[rng.int(WORDS.length)]!).join(' ');
  lines.push(
    r > 0.99
      ? '{"not json'
      : JSON.stringify({ id: r > 0.985 ? 'x1' : `x${i}`, question: q, answer: String(i % 7) }),
  );
}
writeFileSync(join(dir, 'rows.jsonl'), `${lines.join('\n')}\n`);
writeFileSync(
  join(dir, 'ingest.yaml'),
  [
    'name: s3-ingest',
    'kind: tasks',
    'input: { path: rows.jsonl, batchSize: 100 }',
    'mapping: { id: id, prompt: question, answer: answer, taskset: s }',
    'operators: [{ op: strip_html }, { op: normalize_whitespace }, { op: length_filter, params: { minWords: 5 } }, { op: exact_dedup }]',
    'output: { maxRejectedShare: 1, report: false, commitRows: 400 }',
    '',
  ].join('\n'),
);

async function tablesOf(db: string) {
  const tasks = (await (await TaskStore.open(db)).read()).map((t) => [
    t.id,
    t.prompt,
    t.answer,
    t.source?.row,
  ]);
  const rejected = (await (await RejectedStore.open(db)).read())
    .map((r) => [r.step, r.row, r.rowId, r.reason, r.payload] as const)
    // Landing order follows read batches; compare by line, then step and reason.
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]) || a[3].localeCompare(b[3]));
  return { tasks, rejected };
}

describe.skipIf(noRedis || noS3)('queued runs on s3:// (a local S3-compatible server)', () => {
  let redis: TestRedis;
  let s3: TestS3;
  const server = new AnswerServer(40);
  const procs: Proc[] = [];
  const saved: Record<string, string | undefined> = {};
  let flag = '';

  beforeAll(async () => {
    [redis, s3] = await Promise.all([startRedis(), startS3('winnow')]);
    // Child processes (coordinator, workers) inherit the credentials; this process reads with them.
    for (const [k, v] of Object.entries(s3.credentials)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    setStorageOptions(s3.storageOptions);
    flag = Object.entries(s3.storageOptions)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }, 120_000);

  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    setStorageOptions({});
    closeAllConnections();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await s3?.stop();
    await redis?.stop();
  });

  it('a queued ingest with 2 pipeline workers lands the same tasks and rejected records on s3:// as on a local folder', async () => {
    for (let i = 0; i < 2; i++) {
      const w = startWinnow(
        ['worker', '--queue', redis.url, '--role', 'pipeline', '--concurrency', '1'],
        dir,
      );
      procs.push(w);
      await waitFor(
        () => /ready on/.test(w.err) || w.child.exitCode !== null,
        60_000,
        'a pipeline worker to start',
      );
    }
    const local = startWinnow(['run', 'ingest.yaml', '--db', 'db-local', '--quiet'], dir);
    expect(await local.exited, local.err).toBe(0);
    const queued = startWinnow(
      [
        'run',
        'ingest.yaml',
        '--db',
        's3://winnow/ingest',
        '--queue',
        redis.url,
        '--shard-bytes',
        '16384',
        '--storage-option',
        flag,
      ],
      dir,
    );
    expect(await queued.exited, queued.err).toBe(0);
    expect(queued.err).toMatch(/workers encode their rows/);
    const want = await tablesOf(join(dir, 'db-local'));
    const got = await tablesOf('s3://winnow/ingest');
    expect(want.tasks.length).toBeGreaterThan(1000);
    expect(
      want.rejected
        .map((r) => r[0].split(':')[0])
        .filter((s, i, a) => a.indexOf(s) === i)
        .sort(),
    ).toEqual(['exact_dedup', 'length_filter', 'read']);
    expect(got.tasks).toEqual(want.tasks);
    expect(got.rejected).toEqual(want.rejected);
  }, 300_000);

  it('a queued RFT run with 2 rollout workers gives the same steps, buffer rows and selector state on s3:// as on a local folder', async () => {
    const config = writeConfig(dir, await server.start(), 3, 4);
    // The buffer's store options travel in the config (workers get them with the run's context).
    appendFileSync(
      config,
      `storageOptions: { ${Object.entries(s3.storageOptions)
        .map(([k, v]) => `${k}: "${v}"`)
        .join(', ')} }\n`,
    );
    const ref = startWinnow(
      ['run', config, '--db', 'db-rft', '--runs-dir', 'runs', '--run', 'ref', '--quiet'],
      dir,
    );
    expect(await ref.exited, ref.err).toBe(0);
    procs.push(...(await Promise.all([startWorker(redis.url, dir), startWorker(redis.url, dir)])));
    const run = startWinnow(
      [
        'run',
        config,
        '--db',
        's3://winnow/rft',
        '--runs-dir',
        'runs',
        '--run',
        'on-s3',
        '--queue',
        redis.url,
      ],
      dir,
    );
    expect(await run.exited, run.err).toBe(0);
    const want = await readOutcome(join(dir, 'db-rft'), join(dir, 'runs', 'ref'), 'ref');
    const got = await readOutcome('s3://winnow/rft', join(dir, 'runs', 'on-s3'), 'on-s3').catch((err) => {
      throw new Error(
        `${String(err).slice(0, 300)}\n${(err as Error).stack}\nrun log: ${run.err.slice(-3000)}`,
      );
    });
    expect(want.steps).toHaveLength(3);
    expect(want.rows).toHaveLength(3 * 4 * 4);
    expect(got.steps).toEqual(want.steps);
    expect(got.rows).toEqual(want.rows);
    expect(got.selector).toEqual(want.selector);
  }, 300_000);

  it('a missing bucket fails in one line naming the URI, the S3 error and what to do', async () => {
    const r = startWinnow(
      [
        'run',
        'ingest.yaml',
        '--db',
        's3://no-such-bucket/db',
        '--runs-dir',
        'runs-x',
        '--storage-option',
        flag,
      ],
      dir,
    );
    expect(await r.exited).toBe(1);
    const errLines = r.err.trim().split('\n');
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(
      /^error: s3:\/\/no-such-bucket\/db: cannot open the database: request to http:\/\/127\.0\.0\.1:\d+\/no-such-bucket\S* failed \(HTTP 404 NoSuchBucket: The specified bucket does not exist\); create the bucket first/,
    );
  }, 120_000);
});
