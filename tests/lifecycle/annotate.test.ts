import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-annotate-');

describe('explore mode: annotate pass rates', () => {
  it('writes the model’s pass rate per task into the task table as a feature column', async () => {
    const base = smallRftConfig('annotate');
    const config = {
      ...base,
      tasks: { ...base.tasks, limit: 24 } as typeof base.tasks,
      lifecycle: {
        ...base.lifecycle,
        mode: 'explore' as const,
        annotate: { feature: 'pass_rate_tiny', repeat: 4 },
      },
    };
    const db = join(dir, 'db');
    await runRft(config, { baseDir: REPO_ROOT, dbDir: db, runDir: join(dir, 'run') });
    const tasks = await (await TaskStore.open(db)).read();
    expect(tasks).toHaveLength(24);
    const rates = tasks.map((t) => t.features.pass_rate_tiny);
    for (const r of rates) expect([0, 0.25, 0.5, 0.75, 1]).toContain(r);
    // Easy tasks are solved more often than hard ones by the warm-started policy.
    const easy = tasks
      .filter((t) => (t.features.difficulty ?? 1) < 0.2)
      .map((t) => t.features.pass_rate_tiny!);
    const hard = tasks
      .filter((t) => (t.features.difficulty ?? 0) >= 0.5)
      .map((t) => t.features.pass_rate_tiny!);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    if (easy.length > 0 && hard.length > 0) expect(mean(easy)).toBeGreaterThan(mean(hard));
  });
});
