import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Proc, startWinnow, startWorker, stopAll, waitFor, writeConfig } from './scale-run-harness.ts';

// A Redis server that goes away under a running coordinator ends the run with one line naming the
// server and saying to rerun with --resume; the run record is not left `running`.

const noRedis = warnIfNoRedis();

describe.skipIf(noRedis)('the Redis server goes away mid-run', () => {
  const dir = tempDir('winnow-scale-redis-gone-');
  let redis: TestRedis;
  const server = new AnswerServer(100);
  const procs: Proc[] = [];
  let config = '';

  beforeAll(async () => {
    redis = await startRedis();
    config = writeConfig(dir, await server.start(), 20, 4);
    procs.push(await startWorker(redis.url, dir));
  }, 60_000);
  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    await redis?.stop();
  });

  it('the coordinator stops with one line naming the server and --resume; the run is recorded failed', async () => {
    const run = startWinnow(
      ['run', config, '--db', 'db', '--runs-dir', 'runs', '--run', 'g', '--queue', redis.url, '--quiet'],
      dir,
    );
    procs.push(run);
    // --quiet hides the step lines: wait for the run folder's second step record instead.
    await waitFor(() => run.child.exitCode !== null || stepsDone(dir) >= 2, 120_000, 'two steps');
    await redis.stop();
    const code = await run.exited;
    expect(code).not.toBe(0);
    const lines = run.err.trim().split('\n');
    expect(lines, run.err).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^error: .*Redis at 127\\.0\\.0\\.1:${redis.port}.*rerun with --resume`),
    );
    expect(run.err).not.toMatch(/\n\s+at /);
    const record = (await RunTable.readAll(join(dir, 'db'))).find((r) => r.runId === 'g');
    expect(['failed', 'interrupted']).toContain(record?.status);
  }, 240_000);
});

function stepsDone(dir: string): number {
  try {
    return readFileSync(join(dir, 'runs', 'g', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0;
  }
}
