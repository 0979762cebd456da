import { WinnowError } from '../core/errors.ts';
import type { QueueUrl } from './queue-url.ts';

/** The queue's Redis server went away (or lost the run's lease) under a running coordinator. */
export class QueueLostError extends WinnowError {
  override name = 'QueueLostError';
}

/**
 * A running coordinator's loss of its Redis server, told once: `lose` records what happened, and
 * `stopped` (raced against each step's jobs, which would otherwise wait for ever) rejects with one
 * line naming the server and the next step. A close the coordinator began itself is no loss.
 */
export class QueueLoss {
  closing = false;
  private lost: QueueLostError | undefined;
  private reject: (err: Error) => void = () => undefined;
  readonly stopped: Promise<never>;
  private readonly where: string;

  constructor(url: QueueUrl) {
    this.where = `${url.host}:${url.port}`;
    this.stopped = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
    // Raced each step; a loss between steps is read from `error` instead of surfacing unhandled.
    this.stopped.catch(() => undefined);
  }

  get error(): QueueLostError | undefined {
    return this.lost;
  }

  lose(what: string): void {
    if (this.lost || this.closing) return;
    this.lost = new QueueLostError(
      `Redis at ${this.where} ${what}; the run stopped before writing more (its last checkpoint stands): rerun with --resume once the server is back`,
    );
    this.reject(this.lost);
  }
}
