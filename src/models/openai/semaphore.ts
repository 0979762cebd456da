/** A counting semaphore: at most `limit` holders at once, waiters served first come, first served. */
export class Semaphore {
  readonly limit: number;
  private held = 0;
  private readonly queue: Array<{ grant: () => void; reject: (err: unknown) => void }> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Semaphore: limit must be an integer ≥ 1, got ${limit}`);
    this.limit = limit;
  }

  get inFlight(): number {
    return this.held;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Wait for a slot; the returned function gives it back (calling it twice is harmless). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.held++;
          resolve(this.releaser());
        },
        reject,
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  /** Run `fn` while holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.held--;
      const next = this.queue.shift();
      if (next) next.grant();
    };
  }
}
