import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();

function task(i: number, extra: Partial<Task> = {}): Task {
  return {
    id: `t${i}`,
    taskset: 'demo',
    prompt: `What is ${i}+${i}?`,
    answer: String(2 * i),
    features: { difficulty: i / 10 },
    meta: { n: i },
    source: { file: '/data/x.jsonl', row: i + 1 },
    ...extra,
  };
}

describe('TaskStore', () => {
  it('upserts by id: a re-run adds nothing, a changed task is updated, tags check out old versions', async () => {
    const db = join(dir, 'db1');
    const store = await TaskStore.open(db);
    const first = await store.write([task(0), task(1), task(2)], 'r1');
    expect(first).toMatchObject({ inserted: 3, updated: 0, unchanged: 0 });
    const v1 = await store.tagRun('r1');

    const again = await store.write([task(0), task(1), task(2)], 'r2');
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 3 });
    expect(await store.count()).toBe(3);

    const changed = await store.write([task(1, { answer: 'changed' }), task(3)], 'r3');
    expect(changed).toMatchObject({ inserted: 1, updated: 1, unchanged: 0 });
    await store.tagRun('r3');

    const now = (await store.read()).sort((a, b) => a.id.localeCompare(b.id));
    expect(now.map((t) => [t.id, t.answer])).toEqual([
      ['t0', '0'],
      ['t1', 'changed'],
      ['t2', '4'],
      ['t3', '6'],
    ]);
    expect(now[0]).toEqual(task(0));

    const old = (await store.read({ version: 'run-r1' })).sort((a, b) => a.id.localeCompare(b.id));
    expect(old.map((t) => [t.id, t.answer])).toEqual([
      ['t0', '0'],
      ['t1', '2'],
      ['t2', '4'],
    ]);
    expect((await store.read({ version: v1 })).length).toBe(3);
    expect(await store.count()).toBe(4);
  });

  it('records rejected rows with step, reason, file and row, truncating huge payloads', async () => {
    const rej = await RejectedStore.open(join(dir, 'db2'));
    rej.add([
      {
        step: 'read:jsonl',
        reason: 'invalid JSON',
        file: '/a.jsonl',
        row: 3,
        payload: 'x'.repeat(10_000),
        runId: 'r1',
      },
      {
        step: 'length_filter',
        reason: 'too short (2 words < 5)',
        file: '/a.jsonl',
        row: 7,
        rowId: 't7',
        runId: 'r1',
      },
    ]);
    expect(await rej.flush()).toBe(2);
    const rows = (await rej.read({ runId: 'r1' })).sort((a, b) => a.row - b.row);
    expect(rows.map((r) => [r.step, r.reason, r.file, r.row, r.rowId])).toEqual([
      ['read:jsonl', 'invalid JSON', '/a.jsonl', 3, ''],
      ['length_filter', 'too short (2 words < 5)', '/a.jsonl', 7, 't7'],
    ]);
    expect(rows[0]!.payload.length).toBeLessThan(4200);
    expect(rows[0]!.payload).toContain('more chars');
  });
});

describe('a table half-created by a killed process', () => {
  it('is recreated (it held no committed version, so no data) instead of failing every later run', async () => {
    const db = join(dir, 'db-half');
    mkdirSync(join(db, 'tasks.lance', 'data'), { recursive: true });
    const store = await TaskStore.open(db);
    expect(await store.count()).toBe(0);
    expect((await store.write([task(1)], 'r')).inserted).toBe(1);
  });
});
