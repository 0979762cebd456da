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
    // vitest's default on 2 cores is one worker; said here because the slow files compete for the
    // same cores with the processes they start (the CLI, Python, chromium, redis-server).
    // WINNOW_TEST_WORKERS=N overrides it.
    ...(process.env.WINNOW_TEST_WORKERS ? { maxWorkers: Number(process.env.WINNOW_TEST_WORKERS) } : {}),
    testTimeout: Math.round(BASE_MS * factor),
    hookTimeout: Math.round(BASE_MS * factor),
    env: { WINNOW_TEST_SLOWDOWN: String(factor) },
  },
});
