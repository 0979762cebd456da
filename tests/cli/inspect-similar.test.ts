import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { connect } from '../../src/store/connection.ts';
import { LanceSemanticIndexStore } from '../../src/store/semantic-dedup-index.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import { captureMain } from './capture.ts';

const db = join(tempDir('winnow-inspect-similar-'), 'db');
const V: Record<string, number[]> = {
  a: [1, 0, 0, 0],
  b: [0.8, 0.6, 0, 0],
  c: [0, 1, 0, 0],
  d: [-1, -0.5, 0, 0],
};

beforeAll(async () => {
  // A semantic index table (a LanceDB vector column), as semantic_dedup records it.
  const store = new LanceSemanticIndexStore(db);
  const search = await store.open({
    table: 'semantic_index',
    check: true,
    record: true,
    dim: 4,
    annMinRows: 10_000,
    nprobes: 20,
  });
  await search.add(
    Object.entries(V).map(([id, v]) => ({
      taskset: 's',
      taskId: id,
      runId: 'r1',
      vector: Float32Array.from(v),
    })),
  );
  await store.landPending();
  // A task table whose tasks carry meta.embedding, as embed writes it (x has none).
  const tasks: Task[] = Object.entries(V).map(([id, v]) => ({
    id: `t-${id}`,
    taskset: 'p',
    prompt: `task ${id}`,
    features: {},
    meta: { embedding: v },
  }));
  tasks.push({ id: 'x', taskset: 'p', prompt: 'no vector', features: {}, meta: {} });
  await (await TaskStore.open(db)).write(tasks, 'r1');
  await (await TaskStore.open(db, 'plain')).write([{ ...tasks[4]! }], 'r1');
  // A table that is neither: no vector column, no meta.
  const conn = await connect(db);
  await conn.createTable('numbers', [{ id: 'n1', value: 1 }]);
});

const inspect = (...args: string[]) => captureMain(['inspect', ...args, '--db', db]);

describe('winnow inspect TABLE --similar ID', () => {
  it('a vector column: LanceDB nearest neighbours with cosine distances, the row itself left out', async () => {
    const r = await inspect('semantic_index', '--similar', 'a', '--limit', '2');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      [
        "nearest to 'a' in table 'semantic_index' by vector (cosine distance = 1 − similarity):",
        'rank  id  taskset  distance  similarity',
        '----  --  -------  --------  ----------',
        '   1  b   s        0.2000    0.8000',
        '   2  c   s        1.0000    0.0000',
        '',
      ].join('\n'),
    );
  });

  it('--json, and --table T works like the positional TABLE', async () => {
    const r = await inspect('--table', 'semantic_index', '--similar', 'c', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      column: string;
      neighbours: Array<{ id: string; distance: number }>;
    };
    expect(out.column).toBe('vector');
    expect(out.neighbours.map((n) => [n.id, Number(n.distance.toFixed(4))])).toEqual([
      ['b', 0.4],
      ['a', 1],
      ['d', 1.4472],
    ]);
  });

  it('a task table: meta.embedding, searched exactly; tasks without a vector are skipped', async () => {
    const r = await inspect('tasks', '--similar', 't-d', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      column: string;
      neighbours: Array<{ id: string; similarity: number }>;
    };
    expect(out.column).toBe('meta.embedding');
    expect(out.neighbours.map((n) => [n.id, Number(n.similarity.toFixed(4))])).toEqual([
      ['t-c', -0.4472],
      ['t-a', -0.8944],
      ['t-b', -0.9839],
    ]);
  });

  it('one-line errors (exit 2): unknown id, no embedding column, no table, filters, a task without a vector', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['semantic_index', '--similar', 'zz'],
        "no row with id 'zz' in table 'semantic_index' (4 rows; winnow inspect --table semantic_index shows sample ids)",
      ],
      [
        ['numbers', '--similar', 'n1'],
        "table 'numbers' has no embedding column (no fixed-size list of floats and no meta column); embeddings live in a vector column such as semantic_dedup's index table (default 'semantic_index') or in meta.embedding of tasks that ran embed",
      ],
      [
        ['plain', '--similar', 'x'],
        "table 'plain' has no embedding column (no task has meta.embedding); embeddings live in a vector column such as semantic_dedup's index table (default 'semantic_index') or in meta.embedding of tasks that ran embed",
      ],
      [['tasks', '--similar', 'x'], "task 'x' of table 'tasks' has no vector at meta.embedding"],
      [['--similar', 'a'], '--similar ID needs a table: winnow inspect TABLE --similar ID'],
      [['semantic_index', '--similar', 'a', '--where', 'id = 1'], '--similar does not combine with --where'],
      [['semantic_index', '--embedding', 'vector'], '--embedding only goes with --similar ID'],
      [
        ['semantic_index', '--similar', 'a', '--embedding', 'taskset'],
        "table 'semantic_index' has no embedding column ('taskset' is not a vector column; vector columns: vector); embeddings live in a vector column such as semantic_dedup's index table (default 'semantic_index') or in meta.embedding of tasks that ran embed",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await inspect(...args);
      expect([args, r.code, r.stdout]).toEqual([args, 2, '']);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(message);
    }
  });
});
