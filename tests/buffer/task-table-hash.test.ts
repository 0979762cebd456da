import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { storedTask, TASK_COLUMNS, taskContentHash } from '../../src/store/task-table.ts';

const TASKS: Task[] = [
  { id: 'a', taskset: 'gsm8k', prompt: 'What is 2 + 2?', answer: '4', features: {}, meta: {} },
  {
    id: 'b',
    taskset: 'x',
    prompt: 'quote " and \\ and \u2028 and é',
    features: { difficulty: 0.5 },
    meta: { k: [1, { z: null }] },
  },
  { id: 'c', taskset: 'chat', messages: [{ role: 'user', content: 'hi' }], features: {}, meta: {} },
  {
    id: 'd',
    taskset: 'chat',
    messages: [],
    answer: '',
    features: {},
    meta: {},
    source: { file: '/f.jsonl', row: 3 },
  },
];

describe('storedTask', () => {
  it('hashes exactly as taskContentHash (rows written before stay "unchanged" on a re-run)', () => {
    for (const task of TASKS) expect(storedTask(task, 'run', 1).contentHash).toBe(taskContentHash(task));
    expect(new Set(TASKS.map((t) => storedTask(t, 'run', 1).contentHash)).size).toBe(4);
  });

  it('gives every column the same cell as a row without prebuilt JSON', () => {
    for (const task of TASKS) {
      const fast = storedTask(task, 'run', 7);
      const plain = { task, runId: 'run', contentHash: fast.contentHash, updatedAt: 7 };
      expect(TASK_COLUMNS.map((c) => c.get(fast))).toEqual(TASK_COLUMNS.map((c) => c.get(plain)));
    }
  });
});
