import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSelector } from '../../src/selectors/registry.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { SelectorStateStore } from '../../src/store/selector-state-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { BOTS_PARAMS, fakeReward, referenceTasks, serveConfig, startCliServer } from './helpers.ts';

const CLIENT = join(REPO_ROOT, 'examples', 'serve_client.py');
const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython) console.warn('tests/serve: python3 is not installed; the Python client tests are skipped');

const STEPS = 20;
const BATCH_TASKS = 8;
const REPEAT = 4;

/**
 * The selections of an in-process BOTS selector with the serve config's seed and params, fed the
 * client's deterministic fake rewards: what `winnow serve` must hand the Python client.
 */
function inProcessSelections(steps: number): string[][] {
  const selector = createSelector(
    { type: 'bots', params: BOTS_PARAMS },
    taskViewFromTasks(referenceTasks()),
    7,
  );
  const out: string[][] = [];
  for (let step = 1; step <= steps; step++) {
    const ids = selector.select(BATCH_TASKS, { step });
    selector.feedback(
      ids.map((id) => ({
        taskId: id,
        rewards: Array.from({ length: REPEAT }, (_, k) => fakeReward(id, step, k)),
      })),
      { step },
    );
    out.push(ids);
  }
  return out;
}

interface ClientLine {
  step: number;
  taskIds: string[];
  kept: number;
  bufferSize: number;
  lease: number;
  sampled: number;
}

function runClient(url: string, steps: number, env: Record<string, string> = {}): ClientLine[] {
  const r = spawnSync(
    'python3',
    [CLIENT, '--url', url, '--steps', String(steps), '--repeat', String(REPEAT), '--json'],
    {
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, ...env },
    },
  );
  if (r.status !== 0) throw new Error(`serve_client.py exited ${r.status}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ClientLine);
}

describe.skipIf(!hasPython)('the Python client drives BOTS through winnow serve (CLI child process)', () => {
  const expected = inProcessSelections(STEPS);

  it('20 steps: exactly the in-process selections, a growing buffer, one lease per step; SIGTERM stops cleanly', async () => {
    const dir = tempDir('winnow-serve-e2e-');
    const server = await startCliServer([serveConfig(dir), '--port', '0']);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const lines = runClient(server.url, STEPS);
      expect(lines.map((l) => l.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      expect(lines.map((l) => l.taskIds)).toEqual(expected);
      expect(lines.map((l) => l.lease)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      // Every rollout has a finite reward, so invalid_reward keeps all 32 of each step.
      expect(lines.map((l) => l.kept)).toEqual(new Array(STEPS).fill(BATCH_TASKS * REPEAT));
      expect(lines.map((l) => l.bufferSize)).toEqual(lines.map((_, i) => (i + 1) * BATCH_TASKS * REPEAT));
      expect(lines.map((l) => l.sampled)).toEqual(new Array(STEPS).fill(BATCH_TASKS * REPEAT));
    } finally {
      const code = await server.stop('SIGTERM');
      expect(code).toBe(0);
    }
    expect(server.stderr()).toContain('SIGTERM: finishing the request in progress and stopping');
    expect(server.stderr()).toMatch(/--resume --run serve-test-1 continues at revision 100\n/);
    // One selector state per request, pruned every 50 requests to the newest three.
    const states = await SelectorStateStore.open(join(dir, 'db'));
    const steps = (await states.table.query().toArray()).map((r) => Number(r.step)).sort((a, b) => a - b);
    expect(steps).toEqual([98, 99, 100]);
  }, 240_000);

  it('killed (SIGKILL) after step 10 and restarted with --resume: steps 11–20 continue the same sequence', async () => {
    const dir = tempDir('winnow-serve-e2e-kill-');
    const file = serveConfig(dir);
    const env = { WINNOW_SERVE_TOKEN: 'e2e-token-0123456789' };
    const first = await startCliServer([file, '--port', '0'], env);
    let lines: ClientLine[];
    try {
      lines = runClient(first.url, 10, env);
    } finally {
      expect(await first.stop('SIGKILL')).toBe('SIGKILL');
    }
    const second = await startCliServer([file, '--port', '0', '--resume'], env);
    try {
      expect(second.stderr()).toContain('continuing from checkpoint revision 50');
      lines = [...lines, ...runClient(second.url, 10, env)];
      // Without the token the restarted server refuses the client.
      const refused = spawnSync('python3', [CLIENT, '--url', second.url, '--steps', '1'], {
        encoding: 'utf8',
        env: { ...process.env, WINNOW_SERVE_TOKEN: '' },
      });
      expect([refused.status, refused.stderr.trim()]).toEqual([
        1,
        'error: 401 unauthorized: missing token (send Authorization: Bearer <token> (the token winnow serve was started with))',
      ]);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    expect(lines.map((l) => l.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    expect(lines.map((l) => l.taskIds)).toEqual(expected);
    expect(lines.map((l) => l.bufferSize)).toEqual(lines.map((_, i) => (i + 1) * BATCH_TASKS * REPEAT));
  }, 240_000);
});
