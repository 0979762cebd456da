import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { columnValues, encodeRows } from '../../src/store/arrow-codec.ts';
import { encodeTasks, TaskRowsEncoder } from '../../src/store/task-encoder.ts';
import { storedTask, TASK_COLUMNS, taskContentHash } from '../../src/store/task-table.ts';

/** The reference: the generic encoder over StoredTask rows. */
const reference = (tasks: Task[], runId: string, at: number) =>
  encodeRows(
    tasks.map((t) => storedTask(t, runId, at)),
    TASK_COLUMNS,
  );

function expectSameTable(tasks: Task[], runId = 'run-1', at = 1_700_000_000_123, hint?: number) {
  let fast = encodeTasks(tasks, runId, at);
  if (hint !== undefined) {
    // One task at a time into an encoder told to expect `hint` (its columns grow past it).
    const encoder = new TaskRowsEncoder(runId, hint);
    for (const t of tasks) encoder.push(t);
    expect(encoder.length).toBe(tasks.length);
    fast = encoder.finish(at);
  }
  const ref = reference(tasks, runId, at);
  expect(fast.numRows).toBe(tasks.length);
  expect(fast.schema.fields.map((f) => [f.name, String(f.type), f.nullable])).toEqual(
    ref.schema.fields.map((f) => [f.name, String(f.type), f.nullable]),
  );
  for (const f of ref.schema.fields) {
    expect(columnValues(fast, f.name), f.name).toEqual(columnValues(ref, f.name));
    expect(fast.getChild(f.name)!.nullCount, f.name).toBe(ref.getChild(f.name)!.nullCount);
  }
  expect(columnValues(fast, 'content_hash')).toEqual(tasks.map((t) => taskContentHash(t)));
}

const TASKS: Task[] = [
  { id: 'a', taskset: 'gsm8k', prompt: 'What is 2 + 2?', answer: '4', features: {}, meta: {} },
  {
    id: 'b',
    taskset: 'gsm8k',
    prompt: 'quote " and \\ and \u2028 and é and tab\tand \u0001',
    answer: 'naïve "x"',
    features: { difficulty: 0.5, b: -1 },
    meta: { k: [1, { z: null }], s: 'é' },
    source: { file: '/f.jsonl', row: 3 },
  },
  { id: 'c', taskset: 'chat', messages: [{ role: 'user', content: 'hi' }], features: {}, meta: {} },
  {
    id: 'd',
    taskset: 'chat',
    messages: [],
    answer: '',
    features: {},
    meta: {},
    source: { file: '/f.jsonl', row: 4 },
  },
  {
    id: 'e\u00e9',
    taskset: 'gsm8k',
    prompt: '',
    features: {},
    meta: {},
    source: { file: '/g.jsonl', row: 0 },
  },
  { id: 'f', taskset: 'gsm8k', prompt: 'lone \ud800 surrogate and pair 😀', features: {}, meta: {} },
  { id: 'g', taskset: 'gsm8k', prompt: 'del \u007f char', features: {}, meta: { a: {} } },
];

describe('encodeTasks', () => {
  it('writes the same cells and content hashes as the generic encoder', () => {
    expectSameTable(TASKS);
    expectSameTable([TASKS[0]!]);
    expectSameTable([]);
    expect(encodeTasks(TASKS, 'r', 5).getChild('content_hash')!.get(0)).toBe(taskContentHash(TASKS[0]!));
  });

  it('leaves updated_at null when no time is given, like the generic encoder', () => {
    expectSameTable(TASKS.slice(0, 3), 'r', 0);
    expect(encodeTasks(TASKS.slice(0, 3), 'r', 0).getChild('updated_at')!.nullCount).toBe(3);
  });

  it('matches the generic encoder on arbitrary tasks (property)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('a b', '"', '\\'));
    const task = fc.record(
      {
        id: fc.string({ minLength: 1 }),
        taskset: fc.constantFrom('s1', 's2', 'é'),
        prompt: text,
        messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }), {
          maxLength: 3,
        }),
        answer: text,
        features: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.double({ noNaN: true })),
        meta: fc.dictionary(
          fc.string({ maxLength: 4 }),
          fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        ),
        source: fc.record({ file: fc.constantFrom('/a.jsonl', '/b.csv'), row: fc.nat(1e6) }),
      },
      { requiredKeys: ['id', 'taskset', 'features', 'meta'] },
    );
    fc.assert(
      fc.property(fc.array(task, { maxLength: 12 }), (tasks) => {
        expectSameTable(tasks as Task[]);
      }),
      { numRuns: 150, seed: 15 },
    );
  });

  it('TaskRowsEncoder, fed one task at a time past the rows it was told to expect, writes the same table', () => {
    // Nulls after the columns grew (prompt, answer), features and messages on rows past the hint.
    const many = Array.from({ length: 40 }, (_, i) => ({ ...TASKS[i % TASKS.length]!, id: `t${i}` }));
    for (const hint of [0, 1, 3, 40, 100]) {
      expectSameTable(many, 'run-2', 1_700_000_000_000, hint);
      expectSameTable([], 'run-2', 1_700_000_000_000, hint);
    }
    expectSameTable(many, 'run-2', 0, 2);
  });
});
