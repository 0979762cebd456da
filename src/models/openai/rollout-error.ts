import { WinnowError } from '../../core/errors.ts';

/**
 * What went wrong talking to a model server: `timeout` (no full answer within timeoutMs),
 * `http` (a non-2xx status), `malformed` (a body that is not the expected JSON), `network`
 * (connection refused/reset/closed), `empty` (a 2xx answer with no choices).
 */
export type RolloutErrorKind = 'timeout' | 'http' | 'malformed' | 'network' | 'empty';

export class RolloutError extends WinnowError {
  override name = 'RolloutError';
  readonly kind: RolloutErrorKind;
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** Attempts made, the first included. */
  readonly attempts: number;
  readonly url: string;
  constructor(opts: {
    kind: RolloutErrorKind;
    detail: string;
    url: string;
    attempts: number;
    status?: number;
    cause?: unknown;
  }) {
    super(
      `${opts.kind} error from POST ${opts.url} after ${opts.attempts} attempt${opts.attempts === 1 ? '' : 's'}: ${opts.detail}`,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.kind = opts.kind;
    this.status = opts.status;
    this.attempts = opts.attempts;
    this.url = opts.url;
  }

  /** Transient failures worth another try: timeouts, network errors, 429 and 5xx. */
  static isRetryable(kind: RolloutErrorKind, status: number | undefined): boolean {
    if (kind === 'timeout' || kind === 'network') return true;
    if (kind === 'http') return status === 429 || (status !== undefined && status >= 500);
    return false;
  }
}
