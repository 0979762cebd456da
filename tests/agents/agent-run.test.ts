import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTrajectory } from '../../src/agents/trajectory.ts';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { Experience } from '../../src/core/experience.ts';
import { fileLines, spawnWinnow } from '../fault/harness.ts';
import { writeRftYaml } from '../fault/rft-files.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue #18 acceptance: a user environment and a user workflow from test files, named in YAML,
 * run end to end through `winnow run`; and a run killed in the middle of an episode, resumed,
 * ends with the records of the uninterrupted run.
 */
const dir = tempDir('winnow-agent-run-');
const fixture = (f: string) => join(import.meta.dirname, 'fixtures', f);
const STEPS = 3;

/** The YAML of a run whose episodes (user environment `ChainEnv`) are slow enough to be killed inside. */
const agentRunYaml = (name: string, mode: 'sync' | 'async') =>
  writeRftYaml(dir, name, {
    heldout: undefined,
    explorer: {
      model: { type: 'tiny', params: { path: 'datasets/arithmetic/warm-start' } },
      workflow: {
        type: 'agent',
        params: {
          environment: {
            module: fixture('chain-env.ts'),
            export: 'ChainEnv',
            params: { steps: 2, delayMs: 40, log: true },
          },
          maxTurns: 4,
        },
      },
      reward: 'exact_match',
      repeat: 2,
      batchTasks: 2,
    },
    experienceOps: [{ op: 'invalid_reward' }, { op: 'multi_step_grpo' }],
    lifecycle: { mode, steps: STEPS, checkpointEvery: 1 },
  });
const agentYaml = agentRunYaml('agent-env', 'sync');
const asyncYaml = agentRunYaml('agent-async', 'async');

async function rowsOf(db: string, runDir: string): Promise<Experience[]> {
  const { bufferTable } = JSON.parse(readFileSync(join(runDir, 'run-config.json'), 'utf8')) as {
    bufferTable: string;
  };
  const buffer = await ExperienceBuffer.open(db, { table: bufferTable });
  const rows = await buffer.read();
  await buffer.close();
  return rows.sort((a, b) => a.id.localeCompare(b.id));
}

/** What a resumed run must reproduce: each row's identity, tokens, mask, rewards and trajectory, and the step records. */
const essence = (rows: Experience[]) =>
  rows.map((e) => ({
    id: e.id,
    reward: e.reward,
    advantage: e.advantage,
    tokens: e.tokens,
    actionMask: e.actionMask,
    advantages: e.advantages,
    logprobs: e.logprobs.map((x) => Math.round(x * 1e6)),
    trajectory: e.info.trajectory,
    version: e.modelVersion,
  }));
const history = (runDir: string) =>
  fileLines(join(runDir, 'metrics.jsonl')).map((l) => {
    const r = JSON.parse(l) as Record<string, unknown>;
    return [r.step, r.meanReward, r.trainLoss, r.experiencesKept];
  });

/**
 * Run `file` into a fresh database and folder, kill it while step 2's first episode waits inside
 * its environment step, resume it, and expect the step records and rows of the uninterrupted run.
 */
async function expectKillAndResume(file: string, name: string, refRunDir: string, refRows: Experience[]) {
  const db = join(dir, `${name}-db`);
  const runDir = join(dir, `${name}-run`);
  const args = ['run', file, '--db', db, '--run-dir', runDir];
  const killed = await spawnWinnow(args, {
    kill: {
      when: (stderr) => {
        const after = stderr.lastIndexOf('step 1/');
        return after >= 0 && stderr.indexOf('chain-env step 1', after) >= 0;
      },
      delayMs: 0,
    },
  });
  expect(killed.killed).toBe(true);
  expect(history(runDir).map((h) => h[0])).toEqual([1]);
  const resumed = await spawnWinnow([...args, '--resume']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain('resumed from checkpoint at step 1');
  expect(history(runDir)).toEqual(history(refRunDir));
  expect(essence(await rowsOf(db, runDir))).toEqual(essence(refRows));
}

let reference: Experience[] = [];
beforeAll(async () => {
  const r = await spawnWinnow(['run', agentYaml.file, '--json']);
  expect(r.code, r.stderr).toBe(0);
  reference = await rowsOf(agentYaml.db, agentYaml.runDir);
}, 60_000);

describe('agent workflows through winnow run', () => {
  it('a user environment named in YAML runs end to end: episodes stored with their trajectories', () => {
    expect(reference).toHaveLength(STEPS * 2 * 2);
    for (const e of reference) {
      const t = readTrajectory(e);
      if (typeof t === 'string') throw new Error(t);
      expect(t.environment).toBe(`module:${fixture('chain-env.ts')}#ChainEnv`);
      expect(t.turns).toHaveLength(2);
      expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      // The second prompt's tokens are the environment's: masked out, with advantage 0.
      const [a, b] = t.turns;
      const envTokens = b!.tokenSpan[0] - a!.tokenSpan[1];
      expect(envTokens).toBeGreaterThan(0);
      expect(e.actionMask.slice(a!.tokenSpan[1], b!.tokenSpan[0])).toEqual(new Array(envTokens).fill(0));
      expect(e.actionMask.filter((m) => m === 1)).toHaveLength(
        a!.tokenSpan[1] - a!.tokenSpan[0] + b!.tokenSpan[1] - b!.tokenSpan[0],
      );
      expect(e.advantages!.slice(a!.tokenSpan[1], b!.tokenSpan[0]).every((x) => x === 0)).toBe(true);
      expect(e.reward).toBe(t.turns.reduce((s, x) => s + x.reward, 0));
      expect(e.info.advantage_fn).toBe('multi_step_grpo');
    }
  });

  it('a user workflow named in YAML runs end to end', async () => {
    const y = writeRftYaml(dir, 'user-wf', {
      heldout: undefined,
      explorer: {
        model: { type: 'tiny', params: { path: 'datasets/arithmetic/warm-start' } },
        workflow: { module: fixture('user-workflow.ts'), export: 'TaggedWorkflow' },
        reward: 'exact_match',
        repeat: 2,
        batchTasks: 2,
      },
      lifecycle: { mode: 'sync', steps: 1, checkpointEvery: 1 },
    });
    const r = await spawnWinnow(['run', y.file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = await rowsOf(y.db, y.runDir);
    expect(rows).toHaveLength(4);
    expect(rows.map((e) => e.info.by)).toEqual(new Array(4).fill('user-workflow'));
  }, 30_000);

  it('kill-and-resume in the middle of an episode reproduces the uninterrupted run', async () => {
    await expectKillAndResume(agentYaml.file, 'killed', agentYaml.runDir, reference);
  }, 60_000);

  it('async mode: kill-and-resume in the middle of an episode reproduces the uninterrupted async run', async () => {
    const r = await spawnWinnow(['run', asyncYaml.file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const asyncRows = await rowsOf(asyncYaml.db, asyncYaml.runDir);
    // The explorer waits for each step's training before the next: async records what sync does.
    expect(essence(asyncRows)).toEqual(essence(reference));
    await expectKillAndResume(asyncYaml.file, 'killed-async', asyncYaml.runDir, asyncRows);
  }, 60_000);
});
