import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import type { StepAdmission } from '../../src/scale/admission.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type Proc,
  readJobLines,
  readOutcome,
  startWinnow,
  startWorker,
  stopAll,
} from './scale-run-harness.ts';

const noRedis = warnIfNoRedis();
const STEPS = 3;
const GROUPS = 6;
const REPEAT = 4;

/**
 * The project's own tfjs policy, trained as it explores (sync every step), with a replay-ratio
 * limiter whose band admits 4 groups at step 1 and refuses inserts from step 2 on:
 * I + k − S ≤ errorBuffer 16 (samplesPerInsert 1, trainBatch 8; 24 experiences inserted a step).
 */
function tinyConfig(dir: string): string {
  const file = join(dir, 'tiny.yaml');
  writeFileSync(
    file,
    [
      'name: tiny-queue',
      'kind: rft',
      'seed: 3',
      'tasks:',
      `  path: ${join(REPO_ROOT, 'datasets/arithmetic/train.jsonl')}`,
      '  mapping: { taskset: arithmetic, id: id, prompt: prompt, answer: answer }',
      '  limit: 60',
      'selector: { type: bots, params: { m: 4, rho: 0 } }',
      'explorer:',
      `  model: { type: tiny, params: { path: ${join(REPO_ROOT, 'datasets/arithmetic/warm-start')} } }`,
      '  workflow: single_turn',
      '  reward: exact_match',
      `  repeat: ${REPEAT}`,
      `  batchTasks: ${GROUPS}`,
      '  maxTokens: 6',
      '  temperature: 1',
      'experienceOps: [{ op: invalid_reward }, { op: grpo }]',
      'buffer:',
      '  sampler: { type: fifo }',
      `  rateLimiter: { samplesPerInsert: 1, minSizeToSample: 0, errorBuffer: 16, insertBatch: ${GROUPS * REPEAT} }`,
      'trainer: { type: policy_gradient, params: { lr: 0.01 } }',
      `lifecycle: { mode: sync, steps: ${STEPS}, syncInterval: 1, checkpointEvery: 1, trainBatch: 8 }`,
      'monitors: []',
      '',
    ].join('\n'),
  );
  return file;
}

describe.skipIf(noRedis)('the tiny policy and the rate limiter under --queue (2 worker processes)', () => {
  const dir = tempDir('winnow-scale-tiny-');
  let redis: TestRedis;
  const procs: Proc[] = [];
  let config = '';

  beforeAll(async () => {
    redis = await startRedis();
    config = tinyConfig(dir);
  });
  afterAll(async () => {
    await stopAll(procs);
    await redis?.stop();
  });

  it('workers load the trainer’s weights of each version: the same records as one process; jobs in flight bounded by the limiter', async () => {
    const ref = startWinnow(
      ['run', config, '--db', 'db-ref', '--runs-dir', 'runs', '--run', 'ref', '--quiet'],
      dir,
    );
    const workers = await Promise.all([1, 2].map(() => startWorker(redis.url, dir)));
    procs.push(...workers);
    expect(await ref.exited, ref.err).toBe(0);
    const run = startWinnow(
      ['run', config, '--db', 'db-q', '--runs-dir', 'runs', '--run', 'q', '--queue', redis.url],
      dir,
    );
    expect(await run.exited, run.err).toBe(0);
    const reference = await readOutcome(join(dir, 'db-ref'), join(dir, 'runs', 'ref'), 'ref');
    const got = await readOutcome(join(dir, 'db-q'), join(dir, 'runs', 'q'), 'q');
    expect(reference.rows).toHaveLength(STEPS * GROUPS * REPEAT);
    // The policy learns between steps (so stale weights would show), and both runs agree exactly.
    expect(new Set(reference.steps.map((s) => s.explorerVersion))).toEqual(new Set([0, 1, 2]));
    expect(got.steps).toEqual(reference.steps);
    expect(got.rows).toEqual(reference.rows);
    expect(got.selector).toEqual(reference.selector);
    const jobs = readJobLines(join(dir, 'runs', 'q'));
    expect(jobs).toHaveLength(STEPS * GROUPS);
    expect(new Set(jobs.map((j) => j.worker.slice(j.worker.indexOf('pid '))))).toEqual(
      new Set(workers.map((w) => `pid ${w.child.pid}`)),
    );

    // Backpressure: step 1 admits 4 groups (16 ≤ 16), steps 2 and 3 none (one job at a time).
    const steps = readFileSync(join(dir, 'runs', 'q', 'scale-backpressure.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StepAdmission);
    expect(steps.map((s) => [s.step, s.bound, s.maxRunning])).toEqual([
      [1, 4, 4],
      [2, 1, 1],
      [3, 1, 1],
    ]);
    // Step 1: group 5 waits for a free slot; group 6 too unless two jobs finished in one tick.
    expect(steps[0]!.waits.map((w) => [w.taskId, w.bound, w.refused])[0]).toEqual([
      jobs.find((j) => j.step === 1 && jobs.filter((k) => k.step === 1).indexOf(j) === 4)!.taskId,
      4,
      false,
    ]);
    expect([1, 2]).toContain(steps[0]!.waits.length);
    // Steps 2 and 3: every group after the first waited for the one before it.
    for (const s of steps.slice(1)) {
      expect(s.waits).toHaveLength(GROUPS - 1);
      expect(s.waits.every((w) => w.refused && w.running === 1 && w.bound === 1)).toBe(true);
    }
    expect(run.err).toContain('step 2: at most 1 rollout job(s) at once; 5 waited');
  }, 110_000);
});
