import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigError } from '../core/errors.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import type { RftParts } from '../lifecycle/run/rft-parts.ts';
import type { CoordinatedRunInfo } from '../lifecycle/run/rft-run.ts';
import { RunLease } from './lease.ts';
import { QueueLoss } from './queue-loss.ts';
import { QueueRollouts } from './queue-rollouts.ts';
import { connectionOf, type QueueUrl } from './queue-url.ts';
import { contextKeyOf, ROLLOUT_QUEUE, type RunContext } from './rollout-job.ts';
import { weightsPublisher } from './rollout-weights.ts';
import { type QueuedRunFields, serverOf } from './run-jobs.ts';
import { encodeWire } from './wire.ts';

export interface CoordinatorOptions {
  /** Lease time to live; a crashed coordinator's lease lapses this long after its last heartbeat. */
  leaseTtlMs: number;
  /** Rollout jobs in flight at once (default: the step's task groups). */
  maxInFlight?: number;
  log: (line: string) => void;
}

/**
 * `winnow run --queue`: the run becomes the coordinator. It owns the selector, the trainer, the
 * buffer and the run state as a single-process run does; only rollouts go to workers. `claim`
 * takes the run's lease (refusing with the holder's name when another process has it) and stores
 * the run's context for workers. `close` gives the lease back and closes every connection.
 */
export class Coordinator {
  private readonly redis: Redis;
  private queue: Queue | undefined;
  private events: QueueEvents | undefined;
  private lease: RunLease | undefined;
  rollouts: QueueRollouts | undefined;
  private config: RftConfig | undefined;
  private context = '';
  private readonly url: QueueUrl;
  private readonly o: CoordinatorOptions;
  private lastError: string | undefined;
  private readonly loss: QueueLoss;

  constructor(url: QueueUrl, o: CoordinatorOptions) {
    this.url = url;
    this.o = o;
    this.loss = new QueueLoss(url);
    this.redis = new Redis({
      ...(connectionOf(url) as object),
      lazyConnect: true,
      maxRetriesPerRequest: 2,
      retryStrategy: (n: number) => (n > 5 ? null : 200),
    });
    // Connection errors reach the caller through the failed command; ioredis would print them unhandled.
    this.redis.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    // ioredis gave up reconnecting: the server is gone (the run's lease with it, soon).
    this.redis.on('end', () => this.loss.lose(`went away (${this.lastError ?? 'connection closed'})`));
  }

  async claim(run: CoordinatedRunInfo): Promise<QueueRollouts> {
    this.config = run.config;
    await this.reach();
    this.lease = await RunLease.acquire(this.redis, run, {
      ttlMs: this.o.leaseTtlMs,
      onLost: (why) => this.loss.lose(`no longer holds the run's lease (${why})`),
    });
    // One owner whatever the mode: the file lease a single-process run takes, before anything is stored.
    run.onLeased();
    const context = contextKeyOf(run);
    this.context = context;
    const ctx: RunContext = {
      runId: run.runId,
      config: run.config as unknown as Record<string, unknown>,
      baseDir: run.baseDir,
      ...(run.configFile ? { configFile: run.configFile } : {}),
      dbDir: run.dbDir,
      runDir: run.runDir,
      bufferTable: run.bufferTable,
      seed: run.seed,
    };
    await this.redis.set(context, encodeWire(ctx), 'EX', 7 * 86_400);
    const connection = connectionOf(this.url);
    this.queue = new Queue(ROLLOUT_QUEUE, { connection });
    this.events = new QueueEvents(ROLLOUT_QUEUE, { connection });
    await this.events.waitUntilReady();
    const workers = await this.queue.getWorkers();
    this.o.log(
      `coordinator: queue ${this.url.url}, lease held as ${this.lease.holder}; ${workers.length} worker connection(s) now`,
    );
    this.rollouts = new QueueRollouts({
      queue: this.queue,
      events: this.events,
      context,
      runId: run.runId,
      runDir: run.runDir,
      maxInFlight:
        this.o.maxInFlight ?? run.config.explorer.batchTasks + (run.config.explorer.extraGroups ?? 0),
      groupSize: run.config.explorer.repeat,
      lease: this.lease,
      loss: this.loss,
      log: this.o.log,
    });
    return this.rollouts;
  }

  /**
   * The run's parts, once built and its buffer open: each job is admitted against the buffer's
   * rate limiter, and carries the weights of its version (the trainer's, as last synced).
   */
  attach(parts: RftParts): void {
    if (!this.rollouts || !this.config) return;
    const buffer = parts.buffer;
    const weightsOf = weightsPublisher(parts, this.config, this.redis, this.context);
    this.rollouts.attach({
      ...(buffer.canInsert ? { canInsert: (k: number) => buffer.canInsert!(k) } : {}),
      ...(weightsOf ? { weightsOf } : {}),
    });
  }

  /** What the run record keeps of the queue: the server (no password) and the run's context, for `gc`. */
  recordFields(): Record<string, unknown> {
    return { queue: { server: serverOf(this.url), context: this.context } satisfies QueuedRunFields };
  }

  /** Connect to Redis (once): an address that cannot be reached is a usage error naming it. */
  async reach(): Promise<void> {
    if (this.redis.status === 'ready') return;
    try {
      await this.redis.connect();
    } catch (err) {
      throw new ConfigError({
        path: '--queue',
        message: `cannot reach Redis at ${this.url.url}: ${(err as Error).message}`,
        hint: 'start redis-server there, or check the address',
      });
    }
  }

  async close(): Promise<void> {
    this.loss.closing = true;
    if (this.loss.error) {
      // BullMQ would wait for a server that is gone: drop its connections without waiting.
      this.lease?.stop();
      for (const c of [this.events, this.queue]) void c?.disconnect().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    } else {
      await this.lease?.release();
      await this.events?.close().catch(() => undefined);
      await this.queue?.close().catch(() => undefined);
    }
    this.redis.disconnect();
  }
}
