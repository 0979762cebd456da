import { Worker } from 'node:worker_threads';

/**
 * A fixed set of worker threads, each set up once with the same `workerData` (the run's operator
 * chain), that answer jobs by id. Our own rather than piscina/tinypool: a pipeline needs per-run
 * state in every worker (the chain is built once, not per job), callers that drain results in
 * submission order with a bounded window (that is what keeps output order and memory bounded), and
 * the worker's job shape is ours; what is left is ~100 lines, with no dependency to pin or audit.
 *
 * Jobs go to the worker with the fewest jobs in flight (ties: the lowest index). Which worker runs
 * a job never changes its result: only operators that depend on nothing but their row run here.
 */
export interface PoolReply {
  id: number;
  error?: string;
}

export class OrderedPool<Job, Reply extends PoolReply> {
  private readonly workers: Worker[] = [];
  private readonly waiting: Array<Map<number, { resolve(r: Reply): void; reject(e: Error): void }>> = [];
  private nextId = 0;
  private failure: Error | null = null;
  /**
   * Settles once every worker has posted `{ ready: true }` (its set-up is done), or rejects with the
   * first failure. Until then a caller may do the work itself: a worker's start (loading modules,
   * building its chain) takes ~0.5 s of its own core.
   */
  readonly ready: Promise<void>;

  constructor(size: number, entry: URL, workerData: unknown) {
    let started = 0;
    let onReady!: () => void;
    let onFail!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      onReady = resolve;
      onFail = reject;
    });
    this.ready.catch(() => undefined);
    for (let w = 0; w < size; w++) {
      const worker = new Worker(entry, { workerData });
      const waiting = new Map<number, { resolve(r: Reply): void; reject(e: Error): void }>();
      worker.on('message', (reply: Reply | { ready: true }) => {
        if ('ready' in reply) {
          if (++started === size) onReady();
          return;
        }
        const job = waiting.get(reply.id);
        if (!job) return;
        waiting.delete(reply.id);
        if (reply.error !== undefined) job.reject(new Error(reply.error));
        else job.resolve(reply);
      });
      // A worker that dies fails every job it holds; the run then fails with that error.
      const fail = (err: Error) => {
        this.failure ??= err;
        onFail(err);
        for (const job of waiting.values()) job.reject(err);
        waiting.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (waiting.size > 0) fail(new Error(`a pipeline worker stopped (exit code ${code})`));
      });
      this.workers.push(worker);
      this.waiting.push(waiting);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Jobs in flight on the least busy worker (the one `run` would pick). */
  get leastBacklog(): number {
    let least = Number.POSITIVE_INFINITY;
    for (const w of this.waiting) least = Math.min(least, w.size);
    return least;
  }

  /** Send one job; `transfer` lists buffers handed over instead of copied. */
  run(job: Job, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    let pick = 0;
    for (let w = 1; w < this.workers.length; w++)
      if (this.waiting[w]!.size < this.waiting[pick]!.size) pick = w;
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.waiting[pick]!.set(id, { resolve, reject });
      this.workers[pick]!.postMessage({ id, job }, transfer);
    });
  }

  /** Per worker, the share of its life spent running jobs (event-loop utilisation, 0–1). */
  busyShares(): number[] {
    return this.workers.map((w) => w.performance.eventLoopUtilization().utilization);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
