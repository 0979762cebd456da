import type { Rng } from '../../core/rng.ts';

/**
 * Delay before retry number `retry` (1 for the first retry): exponential, base × 2^(retry−1),
 * with "equal jitter" (half fixed, half uniform from the seeded rng) so many clients that failed
 * together do not retry together; capped at `maxMs`. A server's Retry-After raises the delay.
 */
export function backoffDelay(
  retry: number,
  baseMs: number,
  maxMs: number,
  rng: Rng,
  retryAfterMs?: number,
): number {
  const exp = baseMs * 2 ** (retry - 1);
  let delay = exp / 2 + (rng.float() * exp) / 2;
  if (retryAfterMs !== undefined && retryAfterMs > delay) delay = retryAfterMs;
  return Math.min(maxMs, delay);
}

/** Parse a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Sleep that ends early (rejecting with the signal's reason) when the caller aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
