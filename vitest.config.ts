import { defineConfig } from 'vitest/config';
import { slowdownForRun } from './tests/helpers/slowdown.ts';

// Timeouts are generous on an idle machine and grow with how busy it is right now (measured once
// per run; tests/helpers/slowdown.ts), so a loaded machine is never mistaken for a hung test.
const factor = slowdownForRun();
const BASE_MS = 60_000;
if (factor > 1) console.log(`vitest.config: the machine is busy (slowdown x${factor}); timeouts x${factor}`);

export default defineConfig({
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
