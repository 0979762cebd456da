import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import { Rng } from '../../src/core/rng.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  readJobLines,
  readOutcome,
  startWinnow,
  startWorker,
  stopAll,
  writeConfig,
} from './scale-run-harness.ts';

const noRedis = warnIfNoRedis();
const STEPS = 10;
const GROUPS = 6;
const KILLS = 10;

/** Jobs a worker has started and not finished, from its own log lines. */
function activeJobs(w: Proc): string[] {
  const started = [...w.err.matchAll(/^job (\S+) start:/gm)].map((m) => m[1]!);
  const done = new Set([...w.err.matchAll(/^job (\S+) done:/gm)].map((m) => m[1]!));
  return started.filter((j) => !done.has(j));
}

describe.skipIf(noRedis)('workers SIGKILLed mid-job', () => {
  const dir = tempDir('winnow-scale-kills-');
  let redis: TestRedis;
  const server = new AnswerServer(150);
  const procs: Proc[] = [];
  let config = '';
  beforeAll(async () => {
    redis = await startRedis();
    config = writeConfig(dir, await server.start(), STEPS, GROUPS);
  });
  afterAll(async () => {
    await stopAll(procs);
    await server.stop();
    await redis?.stop();
  });

  it(`${KILLS} kills across a run: no experience lost or duplicated, every reclaimed job recorded, results equal the single-process run`, async () => {
    const ref = startWinnow(
      ['run', config, '--db', 'db-ref', '--runs-dir', 'runs', '--run', 'ref', '--quiet'],
      dir,
    );
    expect(await ref.exited, ref.err).toBe(0);
    const reference = await readOutcome(join(dir, 'db-ref'), join(dir, 'runs', 'ref'), 'ref');

    // Four workers; each kill starts a replacement in the background. Any worker holding a job may be
    // killed, the last live one too: the run then waits for a replacement to reclaim the jobs.
    let live = await Promise.all([1, 2, 3, 4].map(() => startWorker(redis.url, dir, 1_500)));
    procs.push(...live);
    const run = startWinnow(
      ['run', config, '--db', 'db-q', '--runs-dir', 'runs', '--run', 'q', '--queue', redis.url],
      dir,
    );
    const rng = new Rng(16);
    const t0 = performance.now();
    const killedJobs: string[] = [];
    let kills = 0;
    while (kills < KILLS && run.child.exitCode === null) {
      // A worker in the middle of a job, after a seeded delay of 0–120 ms into it.
      // Only a worker that has built the run: the kill lands in a rollout, not in module loading.
      const busy = live.find((w) => /built run/.test(w.err) && activeJobs(w).length > 0);
      if (!busy) {
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      await new Promise((r) => setTimeout(r, Math.floor(rng.float() * 120)));
      const active = activeJobs(busy);
      busy.child.kill('SIGKILL');
      await busy.exited;
      killedJobs.push(...active);
      kills++;
      live = live.filter((w) => w !== busy);
      void startWorker(redis.url, dir, 1_500).then((fresh) => {
        procs.push(fresh);
        live.push(fresh);
      });
    }
    expect(await run.exited, run.err).toBe(0);
    expect(kills, `kills before the run ended (${Math.round(performance.now() - t0)} ms)`).toBe(KILLS);

    const got = await readOutcome(join(dir, 'db-q'), join(dir, 'runs', 'q'), 'q');
    expect(new Set(got.rows.map((r) => r.id)).size).toBe(got.rows.length);
    expect(got.rows).toEqual(reference.rows);
    expect(got.steps).toEqual(reference.steps);
    expect(got.selector).toEqual(reference.selector);

    // Every job a killed worker held was taken back and redone, and says so in scale-jobs.jsonl.
    const jobs = readJobLines(join(dir, 'runs', 'q'));
    expect(jobs).toHaveLength(STEPS * GROUPS);
    const reclaimed = new Set(jobs.filter((j) => j.reclaimed > 0).map((j) => j.jobId));
    expect(killedJobs.length).toBeGreaterThanOrEqual(KILLS);
    for (const id of killedJobs) expect(reclaimed.has(id), id).toBe(true);
    expect(run.err).toMatch(/reclaimed after a worker stopped/);
  }, 300_000);
});
