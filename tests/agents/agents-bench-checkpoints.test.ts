import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepEveryCheckpoint, keptCheckpoints } from '../../bench/agents-tools.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `winnow bench agents` evaluates every checkpoint of its runs, not only the three a run's folder
 * retains: it copies each one's explorer weights when the run reports it and reads the copies.
 */
describe('bench agents: every checkpoint is evaluated', () => {
  it('a 5-step run checkpointed every step keeps 3 in its folder; the bench has all 5, byte-identical', async () => {
    const dir = tempDir('winnow-agents-bench-ck-');
    const kept = join(dir, 'kept');
    const runDir = join(dir, 'run');
    const config = smallRftConfig('bench-ck', {
      heldout: undefined,
      // A rate high enough that every step's update changes the weights' bytes.
      trainer: { type: 'policy_gradient', params: { lr: 0.05 } },
      lifecycle: { mode: 'sync', steps: 5, checkpointEvery: 1 },
    });
    await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db'),
      runDir,
      hooks: keepEveryCheckpoint(new Hooks<RftEvents>(), kept),
    });
    const retained = readdirSync(join(runDir, 'checkpoints'))
      .filter((d) => d.startsWith('step-'))
      .sort();
    expect(retained).toEqual(['step-000003', 'step-000004', 'step-000005']);
    const all = keptCheckpoints(kept);
    expect(all.map((c) => c.step)).toEqual([1, 2, 3, 4, 5]);
    for (const step of [3, 4, 5]) {
      const name = `step-00000${step}`;
      const files = readdirSync(join(runDir, 'checkpoints', name, 'explorer')).sort();
      expect(readdirSync(join(kept, name)).sort()).toEqual(files);
      for (const f of files)
        expect(readFileSync(join(kept, name, f))).toEqual(
          readFileSync(join(runDir, 'checkpoints', name, 'explorer', f)),
        );
    }
    // Training changed the weights between checkpoints: each copy is its own step's.
    const weights = (c: { dir: string }) =>
      readdirSync(c.dir)
        .sort()
        .map((f) => readFileSync(join(c.dir, f)).toString('base64'))
        .join();
    expect(new Set(all.map(weights)).size).toBe(5);
    expect(keptCheckpoints(join(dir, 'nowhere'))).toEqual([]);
  }, 30_000);
});
