import { hostname } from 'node:os';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { WinnowError } from '../core/errors.ts';
import { connectionOf, type QueueUrl } from './queue-url.ts';

/** What every `winnow worker` role is started with. */
export interface QueueWorkerOptions {
  queue: QueueUrl;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** A job whose worker stops renewing its lock for this long is taken back and redone elsewhere. */
  visibilityMs: number;
  log: (line: string) => void;
}

/** This process's name in the queue (and in the coordinator's report of who did what). */
export const workerName = (): string => `${hostname()} pid ${process.pid}`;

/** A Redis client for a worker's own reads; failed commands reject (ioredis would also print each). */
export function workerRedis(queue: QueueUrl): Redis {
  const redis = new Redis({ ...(connectionOf(queue) as object) });
  redis.on('error', () => undefined);
  return redis;
}

/**
 * What a worker builds once per run context (a run's parts, a pipeline's operator chain), shared by
 * every job of that context. A failed build is forgotten, so the next job retries it (the context
 * may not have been stored yet).
 */
export class ContextBuilds<T> {
  private readonly built = new Map<string, Promise<T>>();
  private readonly redis: Redis;
  private readonly kind: string;
  private readonly make: (contextText: string) => Promise<T>;

  constructor(redis: Redis, kind: string, make: (contextText: string) => Promise<T>) {
    this.redis = redis;
    this.kind = kind;
    this.make = make;
  }

  get(context: string): Promise<T> {
    let built = this.built.get(context);
    if (!built) {
      built = this.load(context);
      built.catch(() => this.built.delete(context));
      this.built.set(context, built);
    }
    return built;
  }

  /** Every build started so far (for disposing them when the worker leaves). */
  all(): Promise<T>[] {
    return [...this.built.values()];
  }

  private async load(context: string): Promise<T> {
    const text = await this.redis.get(context);
    if (text === null)
      throw new WinnowError(`${this.kind} context ${context} is not in Redis (its coordinator is gone?)`);
    return this.make(text);
  }
}

/**
 * Start a BullMQ worker on `queueName` with the lease semantics every role shares: a job whose
 * worker stops renewing its lock for `visibilityMs` is taken back, as often as that happens (it
 * never fails for having been reclaimed). Resolves once the worker is connected.
 */
export async function startQueueWorker(
  queueName: string,
  process: (job: Job) => Promise<unknown>,
  o: QueueWorkerOptions,
  what: string,
): Promise<Worker> {
  const name = workerName();
  const worker = new Worker(queueName, process, {
    connection: connectionOf(o.queue),
    concurrency: o.concurrency,
    name,
    lockDuration: o.visibilityMs,
    stalledInterval: Math.max(500, Math.floor(o.visibilityMs / 2)),
    maxStalledCount: 1_000_000,
    autorun: false,
  });
  worker.on('error', (err) => o.log(`worker: ${err.message}`));
  void worker.run();
  await worker.waitUntilReady();
  o.log(
    `worker ${name}: ready on ${o.queue.url}${what} (concurrency ${o.concurrency}, visibility ${o.visibilityMs} ms)`,
  );
  return worker;
}
