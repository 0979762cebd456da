import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { StreamContext } from '../lifecycle/task-pipeline-stream.ts';
import type { RunTaskPipelineOptions } from '../lifecycle/task-pipeline-types.ts';
import { addStepCounts, countReason as count, type StepMetrics } from '../operators/step-metrics.ts';
import { prepareExactKey } from '../operators/task/exact-dedup-prepared.ts';
import { readText, type TextField } from '../operators/task/text-fields.ts';
import { jobStats } from './job-stats.ts';
import { RunLease } from './lease.ts';
import {
  PIPELINE_QUEUE,
  type PipelineContext,
  pipelineContextKeyOf,
  type ShardBatch,
  type ShardJob,
  ShardResultSchema,
  shardJobId,
} from './pipeline-job.ts';
import { planShards } from './pipeline-shards.ts';
import { connectionOf, type QueueUrl } from './queue-url.ts';
import { encodeWire } from './wire.ts';

export interface PipelineCoordinatorOptions {
  url: QueueUrl;
  /** A JSONL file larger than this is cut into byte ranges of about this size. */
  shardBytes: number;
  /** Shard jobs queued or running ahead of the one being landed (bounds Redis memory). */
  window: number;
  leaseTtlMs: number;
  log: (line: string) => void;
}

/** One landed shard, as the coordinator reports it. */
export interface ShardRecord {
  shard: number;
  jobId: string;
  worker: string;
  /** Times the shard was taken back from a worker that stopped holding it (killed, hung) and redone. */
  reclaimed: number;
  rows: number;
}

/**
 * `winnow run pipeline.yaml --queue redis://…` for a task pipeline: the run's input stream, done by
 * pipeline workers. The inputs are cut into shards; each shard is a job (id from run and shard, so a
 * reclaimed job is the same job and its result is landed once). Results are landed strictly in
 * shard order, batch by batch, exactly as the in-process loop lands them: read and map rejections,
 * then the row-wise steps' rejections, then the rest of the chain here (exact dedup across all
 * shards included, in input order), then the single writer. So the table, its order and the
 * rejected records equal the single-process run's.
 */
export function queuedInputStream(
  o: PipelineCoordinatorOptions,
  shards: ShardRecord[] = [],
): NonNullable<RunTaskPipelineOptions['inputStream']> {
  return queuedPipeline(o, shards).inputStream;
}

interface Claimed {
  redis: Redis;
  lease: RunLease;
}

/**
 * The queued input stream plus `beforeWrite`, which takes the run's lease on (database, run) and the
 * output table before the pipeline writes anything (its run record, the tables): a second
 * coordinator on the same table is refused with exit 2 naming the holder, and writes nothing. A
 * stream used without `beforeWrite` takes the lease itself as it starts.
 */
export function queuedPipeline(
  o: PipelineCoordinatorOptions,
  shards: ShardRecord[] = [],
): Required<Pick<RunTaskPipelineOptions, 'inputStream' | 'beforeWrite'>> {
  let claimed: Promise<Claimed> | undefined;
  const claim = (dbDir: string, runId: string, table: string): Promise<Claimed> => {
    claimed ??= claimLease(o, dbDir, runId, table);
    return claimed;
  };
  const inputStream: NonNullable<RunTaskPipelineOptions['inputStream']> = async (c, run) => {
    const { redis, lease } = await claim(run.dbDir, c.runId, c.config.output.table);
    const connection = connectionOf(o.url);
    let queue: Queue | undefined;
    let events: QueueEvents | undefined;
    try {
      if (c.hooks.count('afterIngest') > 0)
        throw new ConfigError({
          path: '--queue',
          message:
            'afterIngest hooks run in the coordinator only; they cannot see rows read by pipeline workers',
          hint: 'run without --queue',
        });
      const context = pipelineContextKeyOf(run.dbDir, c.runId);
      const ctx: PipelineContext = {
        runId: c.runId,
        config: c.config as unknown as Record<string, unknown>,
        baseDir: run.baseDir,
        ...(run.configFile ? { configFile: run.configFile } : {}),
        dbDir: run.dbDir,
        seed: run.seed,
      };
      await redis.set(context, encodeWire(ctx), 'EX', 7 * 86_400);
      queue = new Queue(PIPELINE_QUEUE, { connection });
      events = new QueueEvents(PIPELINE_QUEUE, { connection });
      await events.waitUntilReady();
      const { path: _path, ...read } = c.config.input;
      const plan = await planShards(c.files, read, o.shardBytes);
      const workers = await queue.getWorkers();
      o.log(
        `coordinator: ${plan.length} shard(s) of ${c.files.length} file(s) on ${o.url.url}; ${workers.length} worker connection(s) now`,
      );
      const q = queue;
      const submit = (i: number) => {
        const shard = plan[i]!;
        const data: ShardJob = { context, runId: c.runId, shard };
        const added = q.add('shard', data, {
          jobId: shardJobId(context, shard.index),
          removeOnComplete: { age: 86_400 },
          removeOnFail: { age: 7 * 86_400 },
          attempts: 3,
          backoff: { type: 'fixed', delay: 500 },
        });
        added.catch(() => undefined);
        return added;
      };
      const pending = new Map<number, ReturnType<typeof submit>>();
      let rowsRead = 0;
      let inputErrors = 0;
      let rowSteps: StepMetrics[] | null = null;
      const readPerFile = new Map<string, number>();
      for (let i = 0; i < plan.length; i++) {
        for (let k = i; k < Math.min(plan.length, i + o.window); k++)
          if (!pending.has(k)) pending.set(k, submit(k));
        const job = await pending.get(i)!;
        pending.delete(i);
        const raw = await job.waitUntilFinished(events);
        lease.check();
        // An object since workers return one (BullMQ parsed it once); a string from an older worker.
        const result = ShardResultSchema.parse(typeof raw === 'string' ? JSON.parse(raw) : raw);
        const shard = plan[i]!;
        for (const b of result.batches) {
          const read = b.records + b.readRejected.length;
          rowsRead += read;
          readPerFile.set(shard.file, (readPerFile.get(shard.file) ?? 0) + read);
          inputErrors += await landBatch(c, shard.file, b, rowsRead);
        }
        rowSteps = addSteps(rowSteps, result.metrics);
        const done = await jobStats(q, job.id!);
        const record: ShardRecord = {
          shard: shard.index,
          jobId: job.id!,
          worker: done.processedBy ?? result.worker,
          reclaimed: done.stalledCounter,
          rows: result.batches.reduce((n, b) => n + b.tasks, 0),
        };
        shards.push(record);
        o.log(
          `shard ${record.shard}: ${record.rows} row(s) from ${record.worker}${record.reclaimed > 0 ? `, reclaimed ${record.reclaimed}× after a worker stopped` : ''}`,
        );
        // Landed: its result is no longer needed in Redis.
        await q.remove(job.id!).catch(() => undefined);
      }
      for (const file of c.files)
        if ((readPerFile.get(file) ?? 0) === 0)
          c.warn(`${file}: no rows read (the file is empty or holds only blank lines or a header)`);
      await redis.del(context);
      return { rowsRead, inputErrors, ...(rowSteps ? { rowSteps } : {}) };
    } finally {
      await lease.release();
      await events?.close().catch(() => undefined);
      await queue?.close().catch(() => undefined);
      redis.disconnect();
    }
  };
  return {
    inputStream,
    beforeWrite: async (w) => {
      const { redis, lease } = await claim(w.dbDir, w.runId, w.table);
      try {
        w.onLeased();
      } catch (err) {
        // Refused by the file lease (a single-process run holds the table): nothing stays held.
        await lease.release();
        redis.disconnect();
        throw err;
      }
    },
  };
}

/** Connect to Redis and take the lease on (database, run) and the output table; nothing is left open on failure. */
async function claimLease(
  o: PipelineCoordinatorOptions,
  dbDir: string,
  runId: string,
  table: string,
): Promise<Claimed> {
  const redis = new Redis({
    ...(connectionOf(o.url) as object),
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    retryStrategy: (n: number) => (n > 5 ? null : 200),
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new ConfigError({
      path: '--queue',
      message: `cannot reach Redis at ${o.url.url}: ${(err as Error).message}`,
      hint: 'start redis-server there, or check the address',
    });
  }
  try {
    const lease = await RunLease.acquire(
      redis,
      { dbDir, runId, bufferTable: table, tableKind: 'task table' },
      {
        ttlMs: o.leaseTtlMs,
        onLost: (why) =>
          o.log(`warning: the run's lease was lost (${why}); the run stops before its next shard`),
      },
    );
    return { redis, lease };
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

/** Land one batch of a shard as the in-process loop would (task-pipeline-stream.ts). Returns its input errors. */
async function landBatch(c: StreamContext, file: string, b: ShardBatch, rowsRead: number): Promise<number> {
  let inputErrors = 0;
  c.steps.read.rowsIn += b.records + b.readRejected.length;
  c.steps.read.rowsOut += b.records;
  for (const r of b.readRejected) {
    count(c.steps.read, r.reason);
    inputErrors++;
    c.reject(r);
  }
  for (const r of b.mapRejected) {
    count(c.steps.map, r.reason);
    inputErrors++;
    c.reject(r);
  }
  c.steps.map.rowsIn += b.records;
  c.steps.map.rowsOut += b.records - b.mapRejected.length;
  c.steps.map.ms += b.mapMs;
  for (const w of b.warnings) c.warn(`${w.step}: ${w.message}`);
  for (const r of b.rejected) c.rejectTask(r.step, r.row as unknown as Task, r.reason);
  const tasks = JSON.parse(b.tasksJson) as Task[];
  if (!Array.isArray(tasks) || tasks.length !== b.tasks)
    throw new Error(`a shard batch's rows do not match their count (${b.tasks})`);
  if (b.exact && b.exact.keys.length === tasks.length) {
    const field = b.exact.field as TextField;
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      prepareExactKey(t, b.exact.params, readText(t, field), b.exact.keys[i]!, b.exact.checks[i]!);
    }
  }
  const out = await c.graph.process(tasks);
  for (const r of out.rejected) c.rejectTask(r.step, r.row, r.reason);
  await c.land(out.rows);
  c.afterBatch(file, rowsRead);
  return inputErrors;
}

/** Sum the row-wise steps' counts of landed shards, step by step (the same steps, in the same order, in every shard). */
function addSteps(total: StepMetrics[] | null, add: readonly StepMetrics[]): StepMetrics[] {
  if (total === null) return add.map((m) => ({ ...m, reasons: { ...m.reasons }, extra: { ...m.extra } }));
  add.forEach((m, i) => {
    addStepCounts(total[i]!, m);
  });
  return total;
}
