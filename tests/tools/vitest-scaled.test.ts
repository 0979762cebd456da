import { describe, expect, it } from 'vitest';
import { slowdown } from '../helpers/slowdown.ts';

// 'vitest' resolves to tests/helpers/vitest-scaled.ts (vitest.config.ts): a timeout given
// explicitly is scaled by the run's slowdown factor, through every chain. Run with
// WINNOW_TEST_SLOWDOWN=3 to see a factor other than 1 (an idle machine measures 1).
const expected = (ms: number) => Math.round(ms * slowdown());

describe('explicit timeouts follow the slowdown factor', () => {
  it('it(name, fn, ms)', (ctx) => {
    expect(ctx.task.timeout).toBe(expected(7_000));
  }, 7_000);

  it.skipIf(false)(
    'it.skipIf(c)(name, fn, ms)',
    (ctx) => {
      expect(ctx.task.timeout).toBe(expected(9_000));
    },
    9_000,
  );

  it.for([1, 2])('it.for(t)(name, { timeout }, fn) #%i', { timeout: 11_000 }, (_n, ctx) => {
    expect(ctx.task.timeout).toBe(expected(11_000));
  });

  // each's handler gets no context; this checks the table reaches it whole (an added argument
  // once turned it into a template table: names '#NaN', rows undefined).
  const seen: number[] = [];
  it.each([1, 2])(
    'it.each(t)(name, fn, ms) #%i',
    (n) => {
      seen.push(n);
      expect(seen).toEqual([1, 2].slice(0, seen.length));
    },
    11_000,
  );

  it('it(name, fn, { timeout })', { timeout: 13_000 }, (ctx) => {
    expect(ctx.task.timeout).toBe(expected(13_000));
  });

  it('the default: 60 s times the factor', (ctx) => {
    expect(ctx.task.timeout).toBe(expected(60_000));
  });
});
