import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planRun, runStarter } from '../../src/lifecycle/run/run-plan.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

async function dbWith(dir: string, serve: boolean): Promise<string> {
  const db = join(dir, 'db');
  await (await RunTable.open(db)).put({
    runId: 'twin-1',
    kind: 'rft',
    name: 'twin',
    configHash: 'x',
    seed: 3,
    status: 'interrupted',
    startedAt: 1,
    finishedAt: 2,
    tableVersion: 0,
    summary: JSON.stringify({ runDir: join(dir, 'runs', 'twin-1'), ...(serve ? { serve: true } : {}) }),
  });
  return db;
}

describe('--resume continues only runs its own command started', () => {
  it('winnow run --resume refuses a run winnow serve started, naming the command that continues it', async () => {
    const dir = tempDir('winnow-plan-starter-');
    const db = await dbWith(dir, true);
    await expect(
      planRun(smallRftConfig('twin'), 3, {
        baseDir: REPO_ROOT,
        dbDir: db,
        runsDir: join(dir, 'runs'),
        resume: true,
      }),
    ).rejects.toThrow(
      "run 'twin-1' was started by winnow serve, not winnow run (winnow serve --resume continues it; without --resume this starts a new run)",
    );
  });

  it('winnow serve refuses a run winnow run started; each resumes its own', async () => {
    const dir = tempDir('winnow-plan-starter-');
    const db = await dbWith(dir, false);
    const o = { baseDir: REPO_ROOT, dbDir: db, runsDir: join(dir, 'runs'), resume: true } as const;
    await expect(planRun(smallRftConfig('twin'), 3, { ...o, startedBy: 'serve' })).rejects.toThrow(
      "run 'twin-1' was started by winnow run, not winnow serve",
    );
    const plan = await planRun(smallRftConfig('twin'), 3, o);
    expect([plan.runId, plan.resume]).toEqual(['twin-1', true]);
    expect([runStarter('{"serve":true}'), runStarter('{}'), runStarter('not json')]).toEqual([
      'serve',
      'run',
      'run',
    ]);
  });
});
