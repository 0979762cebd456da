import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { backoffDelay, parseRetryAfter, Semaphore } from '../../../src/models/openai/index.ts';

describe('backoffDelay', () => {
  it('grows exponentially with equal jitter, reproducibly for a seed', () => {
    const a = [1, 2, 3, 4].map((k) => backoffDelay(k, 100, 1e9, new Rng(3)));
    const b = [1, 2, 3, 4].map((k) => backoffDelay(k, 100, 1e9, new Rng(3)));
    expect(a).toEqual(b);
    [1, 2, 3, 4].forEach((k, i) => {
      const exp = 100 * 2 ** (k - 1);
      expect(a[i]).toBeGreaterThanOrEqual(exp / 2);
      expect(a[i]).toBeLessThan(exp);
    });
  });

  it('is capped, and raised by Retry-After', () => {
    expect(backoffDelay(20, 100, 5000, new Rng(1))).toBe(5000);
    expect(backoffDelay(1, 100, 5000, new Rng(1), 2000)).toBe(2000);
    expect(backoffDelay(1, 100, 5000, new Rng(1), 60_000)).toBe(5000);
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
  });
});

describe('Semaphore', () => {
  it('admits at most `limit` holders and serves waiters in order', async () => {
    const s = new Semaphore(2);
    const order: string[] = [];
    const r1 = await s.acquire();
    const r2 = await s.acquire();
    expect(s.inFlight).toBe(2);
    const w3 = s.acquire().then((r) => {
      order.push('3');
      return r;
    });
    const w4 = s.acquire().then((r) => {
      order.push('4');
      return r;
    });
    expect(s.waiting).toBe(2);
    r1();
    r1(); // a second call is harmless
    const r3 = await w3;
    expect([s.inFlight, s.waiting]).toEqual([2, 1]);
    r2();
    const r4 = await w4;
    expect(order).toEqual(['3', '4']);
    r3();
    r4();
    expect(s.inFlight).toBe(0);
  });

  it('drops an aborted waiter from the queue', async () => {
    const s = new Semaphore(1);
    const r1 = await s.acquire();
    const ac = new AbortController();
    const waiting = s.acquire(ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(s.waiting).toBe(0);
    r1();
    expect(s.inFlight).toBe(0);
  });

  it('rejects a bad limit', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
