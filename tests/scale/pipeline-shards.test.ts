import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { RunLease } from '../../src/scale/lease.ts';
import { queuedInputStream, type ShardRecord } from '../../src/scale/pipeline-coordinator.ts';
import { planShards } from '../../src/scale/pipeline-shards.ts';
import { parseQueueUrl } from '../../src/scale/queue-url.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Proc, startWinnow, stopAll, waitFor } from './scale-run-harness.ts';

// A pipeline over one JSONL with unreadable lines, rows the mapping rejects, HTML, short texts,
// exact duplicates (also across shards) and repeated ids, cut into ~12 byte-range shards.
const noRedis = warnIfNoRedis();
const dir = tempDir('winnow-pshards-');
const WORDS = 'apple basket dozen eggs farmer garden hours invoice market number orange price'.split(' ');
const rng = new Rng(11);
const texts: string[] = [];
const lines: string[] = [];
for (let i = 0; i < 3000; i++) {
  const r = rng.float();
  let q: string;
  if (r < 0.08 && i > 0) q = texts[rng.int(i)]!;
  else if (r < 0.11) q = 'too short';
  else {
    q = Array.from({ length: 20 + rng.int(20) }, () => WORDS[rng.int(WORDS.length)]!).join(' ');
    if (r < 0.14) q = `<p>${q}</p>   <b>!!</b>`;
  }
  texts.push(q);
  if (r > 0.995) lines.push('{"not json');
  else if (r > 0.99) lines.push(JSON.stringify({ id: `x${i}`, answer: '1' }));
  else if (r > 0.985) lines.push('');
  else lines.push(JSON.stringify({ id: r > 0.98 ? 'x1' : `x${i}`, question: q, answer: String(i % 7) }));
}
// A row the workers' own dedup sets aside but the run keeps: in the last shard, a repeat of the
// first line's id (dropped for it) with a new text, then a new id with that text. Within its shard
// the second row repeats the first; across the run the first is gone, so the second is kept.
const RESCUE = 'a new text that only the last shard holds twice';
lines.unshift(JSON.stringify({ id: 'dup-id', question: 'the first line of the file, kept', answer: '0' }));
lines.push(
  JSON.stringify({ id: 'dup-id', question: RESCUE, answer: '1' }),
  JSON.stringify({ id: 'rescued', question: RESCUE, answer: '2' }),
);
const file = join(dir, 'rows.jsonl');
writeFileSync(file, `${lines.join('\n')}\n`);
const SHARD_BYTES = 48 * 1024;

/**
 * `encoded`: exact_dedup checks ids (its default), so the chain after the row-wise steps is
 * exact_dedup alone and workers send their rows encoded (Arrow in Redis); otherwise as JSON.
 */
function configFor(db: string, encoded = false) {
  return TaskPipelineConfigSchema.parse({
    name: 'shards',
    runsDir: join(db, 'runs'),
    input: { path: file, batchSize: 97 },
    mapping: { id: 'id', prompt: 'question', answer: 'answer', taskset: 's' },
    operators: [
      { op: 'strip_html' },
      { op: 'normalize_whitespace' },
      { op: 'length_filter', params: { minWords: 5 } },
      encoded ? { op: 'exact_dedup' } : { op: 'exact_dedup', params: { checkIds: false } },
    ],
    // The encoded run also writes its report: workers measure rows for it (measureLanded).
    output: { commitRows: 500, maxRejectedShare: 1, report: encoded },
  });
}

async function run(
  name: string,
  queue?: string,
  logs: string[] = [],
  shards: ShardRecord[] = [],
  encoded = false,
) {
  const db = join(dir, `db-${name}`);
  const report = await runTaskPipeline(configFor(db, encoded), {
    baseDir: dir,
    dbDir: db,
    registry: taskOperatorRegistry(),
    ...(queue
      ? {
          inputStream: queuedInputStream(
            {
              url: parseQueueUrl(queue),
              shardBytes: SHARD_BYTES,
              window: 4,
              leaseTtlMs: 10_000,
              log: (l) => logs.push(l),
            },
            shards,
          ),
        }
      : {}),
  });
  const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) => [t.id, t.prompt, t.answer]);
  const rejected = (await (await RejectedStore.open(db)).read())
    .map((r) => [r.step, r.file, r.row, r.rowId, r.reason, r.payload] as const)
    // Within a run, records come in landing order, which follows read-batch boundaries (shards
    // cut batches differently): compare them as a set ordered by line and step.
    .sort((a, b) => a[2] - b[2] || a[0].localeCompare(b[0]) || a[4].localeCompare(b[4]));
  return { tasks, rejected, report };
}

type Report = Awaited<ReturnType<typeof run>>['report'];
const stepsOf = (r: Report) => r.steps.map(({ ms: _ms, ...m }) => m);

function startPipelineWorker(queue: string): Proc {
  return startWinnow(
    ['worker', '--queue', queue, '--role', 'pipeline', '--concurrency', '1', '--visibility-timeout', '1500'],
    dir,
  );
}
const ready = (w: Proc) =>
  waitFor(() => /ready on/.test(w.err) || w.child.exitCode !== null, 60_000, 'a pipeline worker to start');

describe.skipIf(noRedis)('task pipeline shards over the queue (winnow worker --role pipeline)', () => {
  let redis: TestRedis;
  const procs: Proc[] = [];
  let single: Awaited<ReturnType<typeof run>>;
  let singleEncoded: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    redis = await startRedis();
    procs.push(startPipelineWorker(redis.url), startPipelineWorker(redis.url));
    single = await run('single');
    singleEncoded = await run('single-encoded', undefined, [], [], true);
    await Promise.all(procs.map(ready));
  }, 90_000);

  afterAll(async () => {
    await stopAll(procs);
    await redis?.stop();
  });

  it('cuts the JSONL at line starts, numbering each shard from its offset', async () => {
    const shards = await planShards([file], {}, SHARD_BYTES);
    expect(shards.length).toBeGreaterThanOrEqual(10);
    const text = (await import('node:fs')).readFileSync(file);
    for (const s of shards.slice(1)) {
      expect(text[s.range!.start - 1]).toBe(10);
      expect(s.lineOffset).toBe(text.subarray(0, s.range!.start).toString().split('\n').length - 1);
    }
    expect(shards.at(-1)!.range!.end).toBe(text.length);
  });

  it.each([
    ['as JSON', false],
    ['encoded', true],
  ] as const)(
    'rows %s: a SIGKILLed worker’s shard is reclaimed, redone and landed once; the run equals the single-process run',
    async (_, encoded) => {
      const base = encoded ? singleEncoded : single;
      const [victim, survivor] = procs.filter(
        (w) => w.child.exitCode === null && w.child.signalCode === null,
      ) as [Proc, Proc];
      const logs: string[] = [];
      const records: ShardRecord[] = [];
      // Killed the moment a job's start line arrives (not at the next poll): shards are small, and on
      // a busy machine a poll could find the victim between two jobs, with nothing to reclaim. Its
      // first job of a run also builds the pipeline, so it is mid-job then.
      const killed = new Promise<void>((resolve) => {
        const onData = (chunk: Buffer) => {
          if (!/job \S+ start/.test(String(chunk))) return;
          victim.child.kill('SIGKILL');
          victim.child.stderr?.off('data', onData);
          resolve();
        };
        victim.child.stderr?.on('data', onData);
      });
      const queued = run(`killed-${encoded}`, redis.url, logs, records, encoded);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('timed out waiting for the victim to take a shard')),
          30_000,
        );
      });
      await Promise.race([killed, late]).finally(() => clearTimeout(timer));
      // A fresh worker joins during the run, for the next test.
      const fresh = startPipelineWorker(redis.url);
      procs.push(fresh);
      const out = await queued;
      await ready(fresh);
      expect(out.tasks).toEqual(base.tasks);
      expect(out.rejected).toEqual(base.rejected);
      expect(out.report.rowsRead).toBe(base.report.rowsRead);
      expect(logs.some((l) => /workers encode their rows/.test(l))).toBe(encoded);
      // Step counts too: the killed worker's half-done shard is not counted, the redone one once.
      expect(stepsOf(out.report)).toEqual(stepsOf(base.report));
      expect(records.map((r) => r.shard)).toEqual(records.map((_, i) => i));
      expect(records.filter((r) => r.reclaimed > 0).length).toBeGreaterThanOrEqual(1);
      expect(new Set(records.map((r) => r.worker)).size).toBeGreaterThanOrEqual(1);
      expect(survivor.child.exitCode).toBeNull();
      expect(logs.some((l) => /reclaimed 1× after a worker stopped/.test(l))).toBe(true);
    },
    60_000,
  );

  it.each([
    ['as JSON', false],
    ['encoded', true],
  ] as const)(
    'rows %s: two pipeline workers land the same rows, order, rejected records and step counts as the single-process run',
    async (_, encoded) => {
      const base = encoded ? singleEncoded : single;
      const records: ShardRecord[] = [];
      const logs: string[] = [];
      const out = await run(`two-${encoded}`, redis.url, logs, records, encoded);
      expect(base.tasks.length).toBeGreaterThan(2000);
      expect(base.rejected.length).toBeGreaterThan(300);
      const kinds = new Set(base.rejected.map((r) => r[0].split(':')[0]));
      // With ids checked by exact_dedup, a repeated id is its drop, not the writer's.
      expect([...kinds].sort()).toEqual(
        encoded
          ? ['exact_dedup', 'length_filter', 'map', 'read']
          : ['exact_dedup', 'length_filter', 'map', 'read', 'write'],
      );
      if (encoded) expect(base.rejected.some((r) => r[4].startsWith('duplicate id x1'))).toBe(true);
      // (Without exact_dedup checking ids, the text of the repeated id counts: 'rescued' is dropped.)
      expect(base.tasks.filter((t) => t[1] === RESCUE).map((t) => t[0])).toEqual(encoded ? ['rescued'] : []);
      expect(out.tasks).toEqual(base.tasks);
      expect(out.rejected).toEqual(base.rejected);
      expect(out.report.tasksOut).toBe(base.report.tasksOut);
      expect(out.report.inputErrors).toBe(base.report.inputErrors);
      expect(stepsOf(out.report)).toEqual(stepsOf(base.report));
      expect(out.report.steps.find((m) => m.step === 'length_filter')!.dropped).toBeGreaterThan(0);
      expect(logs.some((l) => /workers encode their rows/.test(l))).toBe(encoded);
      expect(out.report.reportFile !== null).toBe(encoded);
      // Each shard landed once, in order (a live worker's first job may be reclaimed on a loaded
      // machine, its visibility timeout being the kill tests' 1.5 s: the tables above stay equal).
      expect(records.map((r) => r.shard)).toEqual(records.map((_, i) => i));
      // Which worker takes which shard is up to the scheduler: on a loaded machine one worker may
      // take them all before the other is polling, so only "landed by a started worker" is asserted.
      expect(records.every((r) => typeof r.worker === 'string' && r.worker.length > 0)).toBe(true);
    },
    60_000,
  );

  it('a second coordinator on the same task table is refused: exit 2 naming the holder, nothing written', async () => {
    const db = join(dir, 'db-single');
    const yaml = join(dir, 'shards.yaml');
    writeFileSync(
      yaml,
      [
        'name: shards',
        'kind: tasks',
        `input: { path: ${file}, batchSize: 97 }`,
        'mapping: { id: id, prompt: question, answer: answer, taskset: s }',
        'operators: [{ op: strip_html }]',
        'output: { maxRejectedShare: 1, report: false }',
        '',
      ].join('\n'),
    );
    // The first coordinator's lease, as queuedPipeline's beforeWrite takes it (held by this process).
    const client = new Redis(redis.port, '127.0.0.1');
    const lease = await RunLease.acquire(
      client,
      { dbDir: db, runId: 'first', bufferTable: 'tasks', tableKind: 'task table' },
      { ttlMs: 30_000 },
    );
    const files = () =>
      readdirSync(db, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => `${join(e.parentPath, e.name)} ${statSync(join(e.parentPath, e.name)).mtimeMs}`)
        .sort();
    const before = files();
    try {
      const r = winnow(['run', yaml, '--db', db, '--queue', redis.url, '--quiet']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: task table 'tasks' is owned by ${process.pid}@\\S+ \\(winnow run --queue, run first, since `,
          'm',
        ),
      );
      expect(r.stderr).toContain('nothing was written');
      expect(files()).toEqual(before);
    } finally {
      await lease.release();
      client.disconnect();
    }
  }, 30_000);
});
