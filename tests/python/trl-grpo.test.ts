import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { createSelector } from '../../src/selectors/registry.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { missingPython, pythonBin } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runUnittest } from './unittest-runner.ts';

/**
 * TRL's GRPOTrainer with Winnow choosing the prompts (BOTS through winnow_client.trl) and judging
 * them (`math` through the server): python/tests/test_trl_e2e.py trains a tiny random Qwen3 for 10
 * steps and logs its steps; here an in-process BOTS selector with the same seed, fed the same
 * rewards, must make the same selections.
 */
interface TrlLog {
  tasks: Array<{ id: string; question: string; answer: string }>;
  seed: number;
  bots: Record<string, number>;
  steps: Array<{ step: number; taskIds: string[]; rewards: Record<string, (number | null)[]> }>;
}

const missing =
  pythonBin() === null
    ? ['python3']
    : missingPython(['torch', 'trl', 'transformers', 'datasets', 'tokenizers'], 'the TRL end-to-end test');

describe.skipIf(missing.length > 0)('TRL GRPOTrainer with Winnow choosing and judging', () => {
  it('10 steps: the selections equal an in-process BOTS run with the same seed and rewards', () => {
    const log = join(tempDir('winnow-trl-log-'), 'trl.json');
    const r = runUnittest('test_trl_e2e', { WINNOW_TRL_LOG: log });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.ran).toBe(1);
    const run = JSON.parse(readFileSync(log, 'utf8')) as TrlLog;
    expect(run.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const tasks: Task[] = run.tasks.map((t) => ({
      id: t.id,
      taskset: 'gsm8k',
      prompt: t.question,
      answer: t.answer,
      features: {},
      meta: {},
    }));
    const selector = createSelector({ type: 'bots', params: run.bots }, taskViewFromTasks(tasks), run.seed);
    for (const s of run.steps) {
      expect(selector.select(s.taskIds.length, { step: s.step })).toEqual(s.taskIds);
      selector.feedback(
        Object.entries(s.rewards).map(([taskId, rewards]) => ({
          taskId,
          rewards: rewards.map((x) => x ?? Number.NaN),
        })),
        { step: s.step },
      );
    }
  }, 900_000);
});
