import { statSync } from 'node:fs';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigError, DataError } from '../core/errors.ts';
import { chainChecksIds } from '../lifecycle/pipeline/task-pipeline-ids.ts';
import type { StreamContext } from '../lifecycle/pipeline/task-pipeline-stream.ts';
import type { PipelineRunInfo, RunTaskPipelineOptions } from '../lifecycle/pipeline/task-pipeline-types.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { addStepCounts, type StepMetrics } from '../operators/step-metrics.ts';
import { planRowWise } from '../pipeline-workers/row-wise-plan.ts';
import { jobStats } from './job-stats.ts';
import { RunLease } from './lease.ts';
import {
  PIPELINE_QUEUE,
  type PipelineContext,
  pipelineContextKeyOf,
  type Shard,
  type ShardBatch,
  type ShardJob,
  type ShardResult,
  shardJobId,
  shardResultOf,
} from './pipeline-job.ts';
import { EncodedShardLanding, fetchShardFrame, landJsonBatch } from './pipeline-landing.ts';
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
  /**
   * Called as the first shard job is queued (`shards`) and once the last shard is landed (`landed`):
   * `bench scale` splits the coordinator's CPU time there (what overlaps the workers and what does not).
   */
  onPhase?: (phase: 'shards' | 'landed') => void;
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
  return {
    inputStream: async (c, run) => {
      const held = await claim(run.dbDir, c.runId, c.config.output.table);
      try {
        return await runShards(o, c, run, held.redis, held.lease, shards);
      } finally {
        await held.lease.release();
        held.redis.disconnect();
      }
    },
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

type StreamResult = Awaited<ReturnType<NonNullable<RunTaskPipelineOptions['inputStream']>>>;

/** The run's shards: stored context, queued jobs (a window ahead), results landed strictly in shard order. */
async function runShards(
  o: PipelineCoordinatorOptions,
  c: StreamContext,
  run: PipelineRunInfo,
  redis: Redis,
  lease: RunLease,
  shards: ShardRecord[],
): Promise<StreamResult> {
  refuseIngestHooks(c);
  const landing = encodedLandingFor(c);
  o.log(
    landing
      ? 'coordinator: workers encode their rows; exact dedup and commits here'
      : 'coordinator: workers send rows as JSON; the chain after the row-wise steps runs here',
  );
  const context = await storeContext(redis, c, run, landing !== null);
  const connection = connectionOf(o.url);
  const queue = new Queue(PIPELINE_QUEUE, { connection });
  const events = new QueueEvents(PIPELINE_QUEUE, { connection });
  try {
    await events.waitUntilReady();
    const { path: _path, ...read } = c.config.input;
    const plan = await planShards(c.files, read, o.shardBytes);
    const workers = await queue.getWorkers();
    o.log(
      `coordinator: ${plan.length} shard(s) of ${c.files.length} file(s) on ${o.url.url}; ${workers.length} worker connection(s) now`,
    );
    const jobs = new ShardSubmitter(queue, context, c.runId, plan, o.window);
    const tally = new ShardTally();
    o.onPhase?.('shards');
    for (let i = 0; i < plan.length; i++) {
      const job = await jobs.take(i);
      const raw = await job.waitUntilFinished(events);
      lease.check();
      const result = shardResultOf(raw, `shard ${i} (job ${job.id})`);
      const where = `shard ${i} (${plan[i]!.file}, job ${job.id}, from ${result.worker})`;
      await landShard(c, { shard: plan[i]!, where }, result, tally, landing, redis);
      if (i === 0) landing?.reserve(expectedRows(plan, tally.rowsOut));
      shards.push(await recordShard(o, queue, job.id!, plan[i]!, result));
      // Landed: its result and rows are no longer needed in Redis.
      await queue.remove(job.id!).catch(() => undefined);
      if (result.frame) await redis.del(result.frame.key).catch(() => undefined);
    }
    o.onPhase?.('landed');
    for (const file of c.files)
      if ((tally.readPerFile.get(file) ?? 0) === 0)
        c.warn(`${file}: no rows read (the file is empty or holds only blank lines or a header)`);
    await redis.del(context);
    return {
      rowsRead: tally.rowsRead,
      inputErrors: tally.inputErrors,
      ...(tally.rowSteps ? { rowSteps: tally.rowSteps } : {}),
      ...(landing ? { tailSteps: landing.steps() } : {}),
    };
  } finally {
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
  }
}

/** afterIngest hooks would need every read row in this process: refused, naming the flag. */
function refuseIngestHooks(c: StreamContext): void {
  if (c.hooks.count('afterIngest') > 0)
    throw new ConfigError({
      path: '--queue',
      message: 'afterIngest hooks run in the coordinator only; they cannot see rows read by pipeline workers',
      hint: 'run without --queue',
    });
}

/**
 * Whether workers may encode their rows (the coordinator then decodes none): the run lands encoded
 * rows (typed table, no afterTaskOps hook) and the chain after the row-wise steps is the built-in
 * exact_dedup checking ids, alone. Null: rows come as JSON and the coordinator runs that chain.
 */
function encodedLandingFor(c: StreamContext): EncodedShardLanding | null {
  if (!c.landEncoded) return null;
  const registry = taskOperatorRegistry();
  const plan = planRowWise(c.config.operators, registry);
  const tail = c.graph.metrics();
  if (plan.workerSteps.length !== c.config.operators.length - 1 || tail.length !== 1) return null;
  if (!chainChecksIds(c.config.operators, registry)) return null;
  return new EncodedShardLanding(tail[0]!, c.config.output.report);
}

/** Store what workers build the run from under the run's context key; returns the key. */
async function storeContext(
  redis: Redis,
  c: StreamContext,
  run: PipelineRunInfo,
  encodeRows: boolean,
): Promise<string> {
  const context = pipelineContextKeyOf(run.dbDir, c.runId);
  const ctx: PipelineContext = {
    runId: c.runId,
    config: c.config as unknown as Record<string, unknown>,
    baseDir: run.baseDir,
    ...(run.configFile ? { configFile: run.configFile } : {}),
    dbDir: run.dbDir,
    seed: run.seed,
    encodeRows,
    measureRows: c.config.output.report,
  };
  await redis.set(context, encodeWire(ctx), 'EX', 7 * 86_400);
  return context;
}

/** Queues shard jobs at most `window` ahead of the one being landed (bounds Redis memory). */
class ShardSubmitter {
  private readonly pending = new Map<number, Promise<Job>>();
  private readonly queue: Queue;
  private readonly context: string;
  private readonly runId: string;
  private readonly plan: readonly Shard[];
  private readonly window: number;
  constructor(queue: Queue, context: string, runId: string, plan: readonly Shard[], window: number) {
    this.queue = queue;
    this.context = context;
    this.runId = runId;
    this.plan = plan;
    this.window = window;
  }

  /** Shard `i`'s job, once queued (and the next ones in the window queued too). */
  take(i: number): Promise<Job> {
    for (let k = i; k < Math.min(this.plan.length, i + this.window); k++)
      if (!this.pending.has(k)) this.pending.set(k, this.submit(k));
    const job = this.pending.get(i)!;
    this.pending.delete(i);
    return job;
  }

  private submit(i: number): Promise<Job> {
    const shard = this.plan[i]!;
    const data: ShardJob = { context: this.context, runId: this.runId, shard };
    const added = this.queue.add('shard', data, {
      jobId: shardJobId(this.context, shard.index),
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: 7 * 86_400 },
      attempts: 3,
      backoff: { type: 'fixed', delay: 500 },
    });
    added.catch(() => undefined);
    return added;
  }
}

/** What the landed shards add up to. */
class ShardTally {
  rowsRead = 0;
  /** Rows the shards' row-wise steps kept (before exact dedup). */
  rowsOut = 0;
  inputErrors = 0;
  rowSteps: StepMetrics[] | null = null;
  readonly readPerFile = new Map<string, number>();

  read(file: string, b: ShardBatch): void {
    const n = b.records + b.readRejected.length;
    this.rowsRead += n;
    this.readPerFile.set(file, (this.readPerFile.get(file) ?? 0) + n);
  }
}

/** Land a shard's batches in order, as JSON rows or as the worker's encoded rows. */
async function landShard(
  c: StreamContext,
  at: { shard: Shard; where: string },
  result: ShardResult,
  tally: ShardTally,
  landing: EncodedShardLanding | null,
  redis: Redis,
): Promise<void> {
  const { shard } = at;
  if (landing && !result.frame && result.batches.some((b) => b.tasks > 0))
    throw new DataError({
      message: `${at.where}: the worker sent its rows as JSON where the run asked for encoded rows (run the same winnow version on every machine)`,
    });
  const frame = landing && result.frame ? await fetchShardFrame(redis, result.frame, at.where) : null;
  let from = 0;
  for (const b of result.batches) {
    tally.read(shard.file, b);
    tally.rowsOut += b.tasks;
    if (landing && frame) {
      tally.inputErrors += landing.land(
        c,
        { file: shard.file, shard: frame, from, rowsRead: tally.rowsRead },
        b,
      );
      from += b.tasks;
    } else tally.inputErrors += await landJsonBatch(c, shard.file, b, tally.rowsRead);
  }
  if (landing && frame && c.landEncoded)
    await landing.finishShard(c.landEncoded, frame, result.frame!.tasksets);
  tally.rowSteps = addSteps(tally.rowSteps, result.metrics);
}

/** The run's rows, estimated from the first shard's rows and bytes (sizes the dedup key set once). */
function expectedRows(plan: readonly Shard[], firstRows: number): number {
  const bytes = (s: Shard) => (s.range ? s.range.end - s.range.start : statSync(s.file).size);
  const first = bytes(plan[0]!);
  if (first <= 0) return firstRows;
  return Math.ceil((firstRows * plan.reduce((n, s) => n + bytes(s), 0)) / first);
}

/** The landed shard's record (who did it, how often it was reclaimed), logged. */
async function recordShard(
  o: PipelineCoordinatorOptions,
  queue: Queue,
  jobId: string,
  shard: Shard,
  result: ShardResult,
): Promise<ShardRecord> {
  const done = await jobStats(queue, jobId);
  const record: ShardRecord = {
    shard: shard.index,
    jobId,
    worker: done.processedBy ?? result.worker,
    reclaimed: done.stalledCounter,
    rows: result.batches.reduce((n, b) => n + b.tasks, 0),
  };
  o.log(
    `shard ${record.shard}: ${record.rows} row(s) from ${record.worker}${record.reclaimed > 0 ? `, reclaimed ${record.reclaimed}× after a worker stopped` : ''}`,
  );
  return record;
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

/** Sum the row-wise steps' counts of landed shards, step by step (the same steps, in the same order, in every shard). */
function addSteps(total: StepMetrics[] | null, add: readonly StepMetrics[]): StepMetrics[] {
  if (total === null) return add.map((m) => ({ ...m, reasons: { ...m.reasons }, extra: { ...m.extra } }));
  add.forEach((m, i) => {
    addStepCounts(total[i]!, m);
  });
  return total;
}
