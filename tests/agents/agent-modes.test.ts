import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTrajectory } from '../../src/agents/trajectory.ts';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { Experience } from '../../src/core/experience.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import type { RftReport } from '../../src/lifecycle/run/rft-run-started.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue #18, item 5: a user environment, a user reward and a user workflow (tests/agents/fixtures)
 * run in every lifecycle mode — sync, async, explore then train, bench — with exact counts and
 * records. (Kill-and-resume: tests/agents/agent-run.test.ts, sync and async.)
 */
const dir = tempDir('winnow-agent-modes-');
const fixture = (f: string) => join(import.meta.dirname, 'fixtures', f);
const STEPS = 3;
const TASKS = 2;
const REPEAT = 2;
const HELDOUT = 4;

const agentExplorer = {
  model: { type: 'tiny', params: { path: 'datasets/arithmetic/warm-start' } },
  workflow: {
    type: 'agent',
    params: {
      environment: { module: fixture('chain-env.ts'), export: 'ChainEnv', params: { steps: 2 } },
      maxTurns: 4,
      finalReward: 'reward',
    },
  },
  reward: { module: fixture('user-reward.ts'), export: 'DigitsBonus', params: { bonus: 0.25 } },
  repeat: REPEAT,
  batchTasks: TASKS,
};
const userWorkflowExplorer = {
  ...agentExplorer,
  workflow: { module: fixture('user-workflow.ts'), export: 'TaggedWorkflow' },
  reward: 'exact_match',
};

function config(name: string, lifecycle: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const heldout = smallRftConfig('x').heldout;
  return smallRftConfig(name, {
    explorer: agentExplorer,
    heldout: { ...heldout, every: 1, size: HELDOUT },
    experienceOps: [{ op: 'invalid_reward' }, { op: 'multi_step_grpo' }],
    // A high rate, so each checkpoint answers differently (the bench test tells them apart).
    trainer: { type: 'policy_gradient', params: { lr: 0.05 } },
    lifecycle: { steps: STEPS, checkpointEvery: 1, ...lifecycle },
    ...extra,
  });
}

async function run(name: string, c: ReturnType<typeof config>): Promise<RftReport> {
  return runRft(c, { baseDir: REPO_ROOT, dbDir: join(dir, 'db'), runDir: join(dir, name) });
}

const tableOf = (r: RftReport) => `${r.runId}_experiences`;

async function rowsOf(table: string): Promise<Experience[]> {
  const buffer = await ExperienceBuffer.open(join(dir, 'db'), { table });
  const rows = await buffer.read();
  await buffer.close();
  return rows.sort((a, b) => a.id.localeCompare(b.id));
}

/** Every row is a whole episode of the user environment, scored by the user reward on its last step. */
function expectEpisodes(rows: Experience[]) {
  for (const e of rows) {
    const t = readTrajectory(e);
    if (typeof t === 'string') throw new Error(t);
    expect(t.environment).toBe(`module:${fixture('chain-env.ts')}#ChainEnv`);
    expect(t.turns).toHaveLength(2);
    expect(t.stopReason).toBe('done');
    expect(e.info.scoredBy).toBe('user-reward');
    expect(e.reward).toBe(t.turns.reduce((s, x) => s + x.reward, 0));
  }
}

/** What two runs must agree on, row by row. */
const essence = (rows: Experience[]) =>
  rows.map((e) => ({
    id: e.id,
    reward: e.reward,
    advantage: e.advantage,
    tokens: e.tokens,
    actionMask: e.actionMask,
    logprobs: e.logprobs.map((x) => Math.round(x * 1e6)),
    trajectory: e.info.trajectory,
    version: e.modelVersion,
  }));
const steps = (r: RftReport) => r.history.map((h) => [h.step, h.explorerVersion, h.trainSteps, h.rollouts]);

let sync: RftReport;
beforeAll(async () => {
  sync = await run('sync', config('agent-sync', { mode: 'sync' }));
}, 30_000);

describe('agent episodes in every lifecycle mode', () => {
  it('sync: the reference — every step explored, trained and evaluated', async () => {
    expect(steps(sync)).toEqual([
      [1, 0, 1, 4],
      [2, 1, 2, 4],
      [3, 2, 3, 4],
    ]);
    const rows = await rowsOf(tableOf(sync));
    expect(rows).toHaveLength(STEPS * TASKS * REPEAT);
    expectEpisodes(rows);
    // Held-out accuracy = mean reward of greedy episodes (0.5 a right step, 0.25 a digits answer).
    expect([sync.initialAccuracy, ...sync.history.map((h) => h.accuracy)]).toEqual([0.75, 0.5, 0.375, 0.25]);
  });

  it('async: the same episodes, versions and step records as sync', async () => {
    // The async explorer waits for step s's update before it starts step s+1
    // (src/lifecycle/run/drivers/async.ts), so the order of updates — and every record — is sync's.
    const r = await run('async', config('agent-async', { mode: 'async', maxExploreAhead: 1 }));
    expect(steps(r)).toEqual(steps(sync));
    const rows = await rowsOf(tableOf(r));
    expect(rows).toHaveLength(STEPS * TASKS * REPEAT);
    expectEpisodes(rows);
    expect(essence(rows)).toEqual(essence(await rowsOf(tableOf(sync))));
    expect(r.history.map((h) => [h.meanReward, h.trainLoss, h.accuracy])).toEqual(
      sync.history.map((h) => [h.meanReward, h.trainLoss, h.accuracy]),
    );
  }, 30_000);

  it('explore, then train from its table: episodes collected with version 0, then learned offline', async () => {
    const buffer = { table: 'agent_split', sampler: { type: 'fifo' } };
    const ex = await run('explore', config('agent-explore', { mode: 'explore' }, { buffer }));
    expect(steps(ex)).toEqual([
      [1, 0, 0, 4],
      [2, 0, 0, 4],
      [3, 0, 0, 4],
    ]);
    const rows = await rowsOf('agent_split');
    expect(rows).toHaveLength(STEPS * TASKS * REPEAT);
    expect(rows.every((e) => e.modelVersion === 0)).toBe(true);
    expectEpisodes(rows);
    // Step 1 explored with the same (untrained) weights as sync's step 1: the same episodes.
    const syncFirst = (await rowsOf(tableOf(sync))).filter((e) => e.exploreStep === 1);
    expect(essence(rows.filter((e) => e.exploreStep === 1))).toEqual(essence(syncFirst));

    const tr = await run('train', config('agent-train', { mode: 'train', trainBatch: 4 }, { buffer }));
    expect(steps(tr)).toEqual([
      [1, 0, 1, 0],
      [2, 0, 2, 0],
      [3, 0, 3, 0],
    ]);
    expect(tr.counters.trained).toBe(STEPS * 4);
    expect(tr.history.every((h) => Number.isFinite(h.trainLoss))).toBe(true);
  }, 30_000);

  it('bench: held-out episodes of each checkpoint score what the run measured after that step', async () => {
    const r = await run(
      'bench',
      config('agent-bench', { mode: 'bench', benchCheckpoints: join(dir, 'sync', 'checkpoints') }),
    );
    expect(r.history.map((h) => [h.step, h.trainSteps, h.tasks])).toEqual([
      [0, 0, HELDOUT],
      [1, 1, HELDOUT],
      [2, 2, HELDOUT],
      [3, 3, HELDOUT],
    ]);
    expect(r.history.map((h) => h.accuracy)).toEqual([
      sync.initialAccuracy,
      ...sync.history.map((h) => h.accuracy),
    ]);
  }, 30_000);

  it('a user workflow runs in async, explore and train too', async () => {
    const wf = (name: string, lifecycle: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      config(name, lifecycle, {
        explorer: userWorkflowExplorer,
        experienceOps: [{ op: 'grpo' }],
        heldout: undefined,
        ...extra,
      });
    const a = await run('wf-async', wf('wf-async', { mode: 'async' }));
    expect(steps(a)).toEqual([
      [1, 0, 1, 4],
      [2, 1, 2, 4],
      [3, 2, 3, 4],
    ]);
    const buffer = { table: 'wf_split' };
    await run('wf-explore', wf('wf-explore', { mode: 'explore', steps: 1 }, { buffer }));
    const rows = await rowsOf('wf_split');
    expect(rows.map((e) => e.info.by)).toEqual(new Array(TASKS * REPEAT).fill('user-workflow'));
    const t = await run('wf-train', wf('wf-train', { mode: 'train', steps: 1, trainBatch: 4 }, { buffer }));
    expect(steps(t)).toEqual([[1, 0, 1, 0]]);
    expect((await rowsOf(tableOf(a))).map((e) => e.info.by)).toEqual(
      new Array(STEPS * TASKS * REPEAT).fill('user-workflow'),
    );
  }, 30_000);
});
