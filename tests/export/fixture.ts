import { join } from 'node:path';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { Experience } from '../../src/core/experience.ts';
import type { Task } from '../../src/core/task.ts';
import { TaskStore } from '../../src/store/task-store.ts';

/**
 * A small fixture for the export tests: three tasks (a plain prompt with nested meta, a chat with
 * different meta types, one without answer or features) and an experience table with four groups
 * (a clear winner, a tie, a small margin, a single rollout).
 */
export const TASKS: Task[] = [
  {
    id: 't1',
    taskset: 'arith',
    prompt: '1+2=',
    answer: '3',
    features: { difficulty: 0.25 },
    meta: { source: 'gen', tags: ['add'], level: 1, ability: 'math' },
  },
  {
    id: 't2',
    taskset: 'arith',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '2*3=' },
    ],
    answer: '6',
    features: { difficulty: 1, pass_rate: 0.5 },
    meta: { source: 'gen', level: 2.5, extra: { ok: true } },
  },
  {
    id: 't3',
    taskset: 'open',
    prompt: 'Name a color.',
    features: {},
    meta: { source: 'hand', tags: [] },
  },
];

export function exp(over: Partial<Experience> & Pick<Experience, 'id' | 'groupId' | 'taskId'>): Experience {
  return {
    taskset: 'arith',
    runIndex: 0,
    stepIndex: 0,
    modelVersion: 2,
    exploreStep: 1,
    prompt: '1+2=',
    response: '3',
    tokens: [5, 6, 7, 8],
    logprobs: [-0.5, -0.25],
    actionMask: [],
    promptLength: 2,
    reward: 1,
    advantage: 0,
    truncated: false,
    info: {},
    useCount: 0,
    priority: 0,
    createdAt: 1_700_000_000_000,
    expert: false,
    ...over,
  };
}

const chat = TASKS[1]!.messages!;

/** g1: rewards 1, 0, 1 (best r0, worst r1); g2: a tie (chat); g3: margin 0.25; g4: one rollout. */
export const EXPERIENCES: Experience[] = [
  exp({ id: 'g1-0', groupId: 'g1', taskId: 't1', runIndex: 0, reward: 1, response: '3', info: { turns: 1 } }),
  exp({ id: 'g1-1', groupId: 'g1', taskId: 't1', runIndex: 1, reward: 0, response: '4', info: { turns: 1 } }),
  exp({ id: 'g1-2', groupId: 'g1', taskId: 't1', runIndex: 2, reward: 1, response: '3.0' }),
  exp({
    id: 'g2-0',
    groupId: 'g2',
    taskId: 't2',
    prompt: undefined,
    messages: chat,
    reward: 0.5,
    response: '6',
  }),
  exp({
    id: 'g2-1',
    groupId: 'g2',
    taskId: 't2',
    runIndex: 1,
    prompt: undefined,
    messages: chat,
    reward: 0.5,
    response: 'six',
  }),
  exp({
    id: 'g3-0',
    groupId: 'g3',
    taskId: 't1',
    reward: 0.5,
    response: '3!',
    info: { judge: { score: 0.5 } },
  }),
  exp({ id: 'g3-1', groupId: 'g3', taskId: 't1', runIndex: 1, reward: 0.25, response: '5' }),
  exp({ id: 'g4-0', groupId: 'g4', taskId: 't3', taskset: 'open', prompt: 'Name a color.', response: 'red' }),
];

/** Write the fixture to a fresh database folder under `dir`; returns its path. */
export async function makeExportDb(dir: string): Promise<string> {
  const db = join(dir, 'db');
  await (await TaskStore.open(db)).write(TASKS, 'fixture');
  const buffer = await ExperienceBuffer.open(db, { table: 'exps' });
  await buffer.write(EXPERIENCES);
  await buffer.close();
  return db;
}
