import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { slowdownForRun } from './tests/helpers/slowdown.ts';

// Timeouts are generous on an idle machine and grow with how busy it is right now (measured once
// per run; tests/helpers/slowdown.ts), so a loaded machine is never mistaken for a hung test.
const factor = slowdownForRun();
const BASE_MS = 60_000;
if (factor > 1) console.log(`vitest.config: the machine is busy (slowdown x${factor}); timeouts x${factor}`);

export default defineConfig({
  // Test files importing 'vitest' get tests/helpers/vitest-scaled.ts: the same module, with the
  // timeouts they pass explicitly (it(..., 180_000), beforeAll(..., 240_000)) scaled as well.
  resolve: { alias: [{ find: /^vitest$/, replacement: fileURLToPath(new URL('./tests/helpers/vitest-scaled.ts', import.meta.url)) }] },
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    // One worker per core, at least two. vitest's default (cores − 1) is one worker on 2 cores, which
    // leaves a core idle whenever a test waits on a process it started; measured on a quiet 2-core
    // machine, the tests without installs took 11m22s with one worker and 7m24s with two, all
    // passing. WINNOW_TEST_WORKERS=N overrides it.
    maxWorkers: process.env.WINNOW_TEST_WORKERS
      ? Number(process.env.WINNOW_TEST_WORKERS)
      : Math.max(2, availableParallelism()),
    testTimeout: Math.round(BASE_MS * factor),
    hookTimeout: Math.round(BASE_MS * factor),
    env: { WINNOW_TEST_SLOWDOWN: String(factor) },
  },
});
