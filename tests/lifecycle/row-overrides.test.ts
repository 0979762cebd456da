import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { TaskSchema } from '../../src/core/task.ts';
import { rewardRegistry } from '../../src/explorer/rewards/registry.ts';
import type { Workflow } from '../../src/explorer/workflow.ts';
import { workflowDefinition, workflowRegistry } from '../../src/explorer/workflows/registry.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import { rowReward, rowWorkflow } from '../../src/lifecycle/pipeline/row-overrides.ts';
import { prepareRft } from '../../src/lifecycle/run/rft-build.ts';
import { RftConfigSchema } from '../../src/lifecycle/run/rft-config.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { treeHashes, writeYaml } from './rft-files.ts';
import { placeIn, runLoop } from './run-loop-harness.ts';

const dir = tempDir('winnow-row-overrides-');

/** Arithmetic tasks; task i names `names[i % names.length]` in meta.reward_fn (undefined: none). */
function taskFile(name: string, names: Array<string | number | undefined>): string {
  const lines = Array.from({ length: 8 }, (_, i) => {
    const chosen = names[i % names.length];
    return JSON.stringify({
      id: `t${i}`,
      prompt: `${i}+1=`,
      answer: String(i + 1),
      meta: chosen === undefined ? {} : { reward_fn: chosen, flow: 'single_turn' },
    });
  });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function config(name: string, tasksPath: string, explorer: Record<string, unknown> = {}) {
  const raw = smallRftRaw(name);
  return RftConfigSchema.parse({
    ...raw,
    tasks: {
      path: tasksPath,
      mapping: {
        taskset: 'demo',
        id: 'id',
        prompt: 'prompt',
        answer: 'answer',
        meta: { reward_fn: 'meta.reward_fn', flow: 'meta.flow' },
      },
    },
    heldout: undefined,
    explorer: { ...(raw.explorer as object), reward: 'math', rewardKey: 'reward_fn', ...explorer },
    lifecycle: { mode: 'explore', steps: 1 },
    experienceOps: [{ op: 'invalid_reward' }],
  });
}

describe('per-row reward and workflow overrides', () => {
  it('each task is scored by the reward its meta.reward_fn names, the others by explorer.reward', async () => {
    const c = config('rows', taskFile('rows', ['exact_match', 'format', undefined, 'math']), {
      workflowKey: 'flow',
      batchTasks: 8,
      repeat: 2,
    });
    const rolled: Experience[] = [];
    const hooks = new Hooks<RftEvents>().on('afterRollout', (p) => void rolled.push(...p.rows));
    await runLoop(c, placeIn(dir, 'rows'), { hooks });
    expect(rolled).toHaveLength(16);
    const expected = ['exact_match', 'format', 'math', 'math'];
    for (const e of rolled) expect(e.info.reward_fn).toBe(expected[Number(e.taskId.slice(1)) % 4]);
    expect(new Set(rolled.map((e) => e.info.reward_fn))).toEqual(new Set(expected));
    // The format reward judged those rows: no tags in a bare arithmetic answer.
    for (const e of rolled.filter((x) => x.info.reward_fn === 'format')) {
      expect(e.reward).toBe(0);
      expect(e.info.reason).toBe('missing <think>');
    }
  });

  it('an unknown name in the task set fails before the run starts, naming the task and row', async () => {
    const c = config('bad', taskFile('bad', ['math', 'exact_mach']));
    const at = placeIn(dir, 'bad');
    await expect(
      prepareRft(c, {
        baseDir: REPO_ROOT,
        dbDir: at.dbDir,
        runDir: at.runDir,
        runId: 'bad',
        seed: 1,
        configFile: 'run.yaml',
      }),
    ).rejects.toThrow(
      /^run\.yaml: explorer\.rewardKey: task 't1' \(.*bad\.jsonl row 2\) names reward function 'exact_mach' in meta\.reward_fn, which is not registered \(did you mean 'exact_match'\?\)$/,
    );
    expect(existsSync(at.runDir)).toBe(false);
    expect(existsSync(at.dbDir)).toBe(false);
    const notText = config('num', taskFile('num', [7]));
    await expect(
      prepareRft(notText, { baseDir: REPO_ROOT, dbDir: at.dbDir, runDir: at.runDir, runId: 'num', seed: 1 }),
    ).rejects.toThrow(/task 't0' .* has meta\.reward_fn = 7; expected the name of a reward function/);
    const badFlow = config('flow', taskFile('flow', ['math']), { workflowKey: 'reward_fn' });
    await expect(
      prepareRft(badFlow, { baseDir: REPO_ROOT, dbDir: at.dbDir, runDir: at.runDir, runId: 'flow', seed: 1 }),
    ).rejects.toThrow(
      /explorer\.workflowKey: task 't0' .* names workflow 'math' in meta\.reward_fn, which is not registered/,
    );
  });

  it('winnow run: exit 2, one line on stderr, nothing written', () => {
    const tasks = taskFile('cli', [undefined, undefined, 'countdwn']);
    const raw = smallRftRaw('cli-overrides');
    const cfg = writeYaml(join(dir, 'cli.yaml'), {
      ...raw,
      tasks: {
        path: tasks,
        mapping: {
          taskset: 'demo',
          id: 'id',
          prompt: 'prompt',
          answer: 'answer',
          meta: { reward_fn: 'meta.reward_fn' },
        },
      },
      heldout: undefined,
      explorer: {
        ...(raw.explorer as object),
        model: { type: 'tiny', params: { path: join(REPO_ROOT, 'datasets/arithmetic/warm-start') } },
        rewardKey: 'reward_fn',
      },
    });
    const before = treeHashes(dir);
    const r = winnow(['run', cfg, '--db', join(dir, 'cli-db'), '--runs-dir', join(dir, 'cli-runs')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /explorer\.rewardKey: task 't2' \(.*cli\.jsonl row 3\) names reward function 'countdwn' in meta\.reward_fn, which is not registered \(did you mean 'countdown'\?\)/,
    );
    expect(treeHashes(dir)).toEqual(before);
  });

  it('a named reward that needs params fails at the door too', async () => {
    const c = config('dapo', taskFile('dapo', ['dapo']));
    const at = placeIn(dir, 'dapo');
    await expect(
      prepareRft(c, { baseDir: REPO_ROOT, dbDir: at.dbDir, runDir: at.runDir, runId: 'dapo', seed: 1 }),
    ).rejects.toThrow(/explorer\.rewardKey 'dapo'\.params/);
  });

  it('rowReward leaves the default alone without a key; rowWorkflow batches only when every workflow can', async () => {
    const tasks = ['a', 'b'].map((id) =>
      TaskSchema.parse({ id, taskset: 's', prompt: 'p', meta: { w: id === 'a' ? 'plain' : '' } }),
    );
    const fallback = async () => ({ reward: 5 });
    expect(
      await rowReward(tasks, undefined, { fn: fallback, type: 'x' }, rewardRegistry(), { baseDir: '.' }),
    ).toBe(fallback);

    const calls: string[] = [];
    const batched: Workflow = {
      name: 'single_turn',
      run: async (t) => {
        calls.push(`batched:${t.id}`);
        return [];
      },
      prepare: () => ({ prompt: 'p', n: 1, maxTokens: 1, temperature: 0, seed: 0 }),
      finish: async () => [],
    };
    const plain: Workflow = {
      name: 'plain',
      run: async (t) => {
        calls.push(`plain:${t.id}`);
        return [];
      },
    };
    const reg = workflowRegistry();
    reg.register(workflowDefinition(plain));
    const routed = await rowWorkflow(tasks, 'w', batched, reg, { baseDir: '.' });
    expect(routed.prepare).toBeUndefined();
    for (const t of tasks) await routed.run(t, {} as never, {} as never);
    expect(calls).toEqual(['plain:a', 'batched:b']);
    const allBatched = await rowWorkflow(tasks, 'nothing-here', batched, reg, { baseDir: '.' });
    expect(allBatched.prepare).toBeDefined();
  });
});
