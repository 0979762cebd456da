import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyAugmentedSolution } from '../../src/operators/task/index.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-gsm8k-');

describe('pipelines/gsm8k-tasks.yaml through the CLI', () => {
  const db = join(dir, 'db');

  it('lands all 1,319 problems with numeric answers plus verified augmented variants; a second run adds nothing', async () => {
    const first = winnow(['run', 'pipelines/gsm8k-tasks.yaml', '--db', db, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as {
      rowsRead: number;
      inserted: number;
      rejected: number;
      totalTasks: number;
    };
    expect(report.rowsRead).toBe(1319);

    const tasks = await (await TaskStore.open(db)).read();
    const originals = tasks.filter((t) => t.meta.augmented !== true);
    const augmented = tasks.filter((t) => t.meta.augmented === true);
    // Every source line of the file is represented by exactly one original task.
    expect(new Set(originals.map((t) => t.source?.row)).size).toBe(1319);
    expect(originals.length).toBe(1319);
    expect(augmented.length).toBeGreaterThan(300);
    for (const t of tasks) expect(t.answer, t.id).toMatch(/^-?\d+(\.\d+)?$/);

    const ids = new Set(originals.map((t) => t.id));
    for (const t of augmented) {
      expect(ids.has(String(t.meta.parentId)), `parent of ${t.id}`).toBe(true);
      const check = verifyAugmentedSolution(String(t.meta.solution));
      expect(check.ok, `${t.id}: ${check.reason}`).toBe(true);
      // The final line may keep thousands separators ("#### 58,600"); the answer never does.
      const finalLine = String(t.meta.solution).split('\n').pop()!;
      expect(finalLine.replace(/,/g, '')).toBe(`#### ${t.answer}`);
    }
    expect(report.totalTasks).toBe(tasks.length);

    const second = winnow(['run', 'pipelines/gsm8k-tasks.yaml', '--db', db, '--json']);
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as { inserted: number; updated: number; totalTasks: number };
    expect(again.inserted).toBe(0);
    expect(again.updated).toBe(0);
    expect(again.totalTasks).toBe(tasks.length);
  });
});
