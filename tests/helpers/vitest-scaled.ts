/**
 * What test files get when they import 'vitest' (vitest.config.ts aliases it here): vitest itself,
 * except that a timeout a test or hook gives explicitly — `it(name, fn, 180_000)`,
 * `beforeAll(fn, 240_000)` — is multiplied by the run's slowdown factor like the default ones
 * (tests/helpers/slowdown.ts). Without this, an explicit limit sized for an idle machine could
 * fail a test only because the machine is busy.
 */
// The real module, by file: the specifier 'vitest' leads back here.
import * as real from '../../node_modules/vitest/dist/index.js';
import { slowdown } from './slowdown.ts';

type AnyFn = (...args: unknown[]) => unknown;
const factor = slowdown();

/** A number, or an options object's `timeout`, times the factor; anything else as it was. */
function scaledOption(option: unknown): unknown {
  if (typeof option === 'number') return Math.round(option * factor);
  if (
    option !== null &&
    typeof option === 'object' &&
    typeof (option as { timeout?: unknown }).timeout === 'number'
  ) {
    const o = option as { timeout: number };
    return { ...o, timeout: Math.round(o.timeout * factor) };
  }
  return option;
}

/** `it`, `test`, `describe` and their chains (`.skipIf(c)`, `.each(t)`, `.concurrent`…): the timeout is the third argument. */
function scaledApi<T>(api: T): T {
  if (factor === 1) return api;
  const wrap = (target: unknown): unknown => {
    if (typeof target !== 'function') return target;
    return new Proxy(target as AnyFn, {
      apply(fn, self, args: unknown[]) {
        // (name, fn, ms), (name, fn, { timeout }) or (name, { timeout }, fn).
        // Only arguments that are there: a longer list changes what `each` does (template tables).
        for (const i of [1, 2]) if (i < args.length) args[i] = scaledOption(args[i]);
        return wrap(Reflect.apply(fn, self, args));
      },
      get(fn, key, receiver) {
        return wrap(Reflect.get(fn, key, receiver));
      },
    });
  };
  return wrap(api) as T;
}

/** beforeAll, afterAll, beforeEach, afterEach: the timeout is the second argument. */
function scaledHook<T>(hook: T): T {
  if (factor === 1) return hook;
  return ((fn: unknown, timeout?: unknown, ...rest: unknown[]) =>
    (hook as AnyFn)(fn, typeof timeout === 'number' ? Math.round(timeout * factor) : timeout, ...rest)) as T;
}

export * from '../../node_modules/vitest/dist/index.js';
export const it: typeof real.it = scaledApi(real.it);
export const test: typeof real.test = scaledApi(real.test);
export const describe: typeof real.describe = scaledApi(real.describe);
export const suite: typeof real.suite = scaledApi(real.suite);
export const beforeAll: typeof real.beforeAll = scaledHook(real.beforeAll);
export const afterAll: typeof real.afterAll = scaledHook(real.afterAll);
export const beforeEach: typeof real.beforeEach = scaledHook(real.beforeEach);
export const afterEach: typeof real.afterEach = scaledHook(real.afterEach);
