import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  settledAfterStop,
  snapshot,
  startWinnow,
  startWorker,
  stopAll,
  waitFor,
  writeConfig,
} from './scale-run-harness.ts';

// One owner per run whatever the mode: a queued coordinator holds the same file lease as a
// single-process run, so a `--resume` of its run in one process is refused before it writes.

const noRedis = warnIfNoRedis();
const STEPS = 6;
const GROUPS = 4;

async function bufferRows(dbDir: string, runId: string): Promise<number> {
  return (await (await connect(dbDir)).openTable(`${runId}_experiences`)).countRows();
}

describe.skipIf(noRedis)('one owner per run, whatever the mode', () => {
  const dir = tempDir('winnow-scale-owner-');
  let redis: TestRedis;
  const server = new AnswerServer(100);
  const procs: Proc[] = [];
  let config = '';

  beforeAll(async () => {
    redis = await startRedis();
    config = writeConfig(dir, await server.start(), STEPS, GROUPS);
    procs.push(await startWorker(redis.url, dir));
  }, 60_000);
  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    await redis?.stop();
  });

  it('a single-process --resume of a run a coordinator is running is refused, naming the coordinator; its buffer is untouched', async () => {
    const args = ['run', config, '--db', 'db', '--runs-dir', 'runs', '--run', 'q'];
    const coordinator = startWinnow([...args, '--queue', redis.url, '--lease-ttl', '120'], dir);
    procs.push(coordinator);
    await waitFor(
      () => /step 2: \d+ rollout job/.test(coordinator.err),
      120_000,
      'the coordinator to finish step 2',
    );
    // Frozen, so that the folders stay still while the second process tries (its leases are far from lapsing).
    coordinator.child.kill('SIGSTOP');
    try {
      const before = await settledAfterStop(coordinator.child.pid!, dir);
      const rowsBefore = await bufferRows(join(dir, 'db'), 'q');
      expect(rowsBefore).toBeGreaterThanOrEqual(GROUPS * 4);

      const resume = startWinnow([...args, '--resume'], dir);
      expect(await resume.exited, resume.err).toBe(2);
      const lines = resume.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^error: run 'q' is owned by ${coordinator.child.pid}@\\S+ \\(winnow run --queue, run q, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\); nothing was written`,
        ),
      );
      expect(await bufferRows(join(dir, 'db'), 'q')).toBe(rowsBefore);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      coordinator.child.kill('SIGCONT');
    }
    expect(await coordinator.exited, coordinator.err).toBe(0);
    expect(await bufferRows(join(dir, 'db'), 'q')).toBe(STEPS * GROUPS * 4);
    const record = (await RunTable.readAll(join(dir, 'db'))).find((r) => r.runId === 'q');
    expect(record?.status).toBe('completed');
  }, 240_000);

  it('a queued coordinator is refused by the single-process run holding the run', async () => {
    const args = ['run', config, '--db', 'db-s', '--runs-dir', 'runs-s', '--run', 's'];
    const single = startWinnow(args, dir);
    procs.push(single);
    await waitFor(
      () => existsSync(join(dir, 'runs-s', 's', 'metrics.jsonl')) || single.child.exitCode !== null,
      120_000,
      'the single-process run to finish a step',
    );
    single.child.kill('SIGSTOP');
    try {
      await settledAfterStop(single.child.pid!, dir);
      const queued = startWinnow([...args, '--resume', '--queue', redis.url], dir);
      expect(await queued.exited, queued.err).toBe(2);
      expect(queued.err.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          `^error: run 's' is owned by ${single.child.pid}@\\S+ \\(winnow run, run s, since [^)]+\\); nothing was written`,
        ),
      );
    } finally {
      single.child.kill('SIGCONT');
    }
    expect(await single.exited, single.err).toBe(0);
  }, 240_000);
});
