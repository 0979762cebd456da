import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, WINNOW_BIN } from '../helpers/cli.ts';
import { scaled } from '../helpers/slowdown.ts';
import { tempDir } from '../helpers/tmp.ts';
import { envWithoutNpm, findOldNode } from './old-node.ts';

// bin/winnow.js started by a Node older than 22 (the machines carry Node 20): with the `node`
// package installed beside it (the repository's devDependency) it re-runs itself on that Node;
// without one it says in one line what it needs.
const OLD_NODE = findOldNode();
const PINNED = join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node');

describe('bin/winnow.js on a Node older than 22', () => {
  it.skipIf(OLD_NODE === undefined || !existsSync(PINNED))(
    "re-runs itself on the repository's pinned Node and answers as usual",
    () => {
      const r = spawnSync(OLD_NODE!, [WINNOW_BIN, 'schema', 'task'], {
        cwd: '/',
        encoding: 'utf8',
        env: envWithoutNpm(),
        timeout: scaled(120_000),
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).title).toBe('Winnow task pipeline');
    },
  );

  it.skipIf(OLD_NODE === undefined)(
    'without a usable newer Node: one line naming the Node it needs, exit 1',
    () => {
      // The mark the re-run child carries makes the bin behave as if no newer Node were installed.
      const r = spawnSync(OLD_NODE!, [WINNOW_BIN, 'run', 'x.yaml'], {
        cwd: '/',
        encoding: 'utf8',
        env: envWithoutNpm({ WINNOW_REEXEC_NODE: '1' }),
        timeout: scaled(60_000),
      });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^winnow needs Node >= 22\.18 \(this is 2\d\.\d+\.\d+\): .*npm install --save-dev node@22/,
      );
    },
  );

  it.skipIf(OLD_NODE === undefined || !existsSync(PINNED))(
    'passes SIGTERM on to the re-run process: the run stops and is recorded interrupted',
    async () => {
      const dir = tempDir('winnow-bin-signal-');
      const child = spawn(
        OLD_NODE!,
        [
          WINNOW_BIN,
          'run',
          join(REPO_ROOT, 'pipelines', 'arithmetic-bots.yaml'),
          '--db',
          join(dir, 'db'),
          '--runs-dir',
          join(dir, 'runs'),
        ],
        { cwd: dir, env: envWithoutNpm(), stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      // Wait until the loop runs (its first step line), then signal the launcher only.
      const deadline = Date.now() + scaled(120_000);
      while (!/step 1\//.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      const status = await new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      expect(status).not.toBe(0);
      const runs = spawnSync(process.execPath, [WINNOW_BIN, 'runs', '--db', join(dir, 'db'), '--json'], {
        encoding: 'utf8',
      });
      const [run] = JSON.parse(runs.stdout) as Array<{ status: string; recordedStatus?: string }>;
      // Recorded by the re-run process itself (a live handler), not inferred from a dead pid.
      expect([run!.status, run!.recordedStatus]).toEqual(['interrupted', undefined]);
    },
    scaled(180_000),
  );

  if (OLD_NODE === undefined)
    console.warn('bin-node-version: no Node < 22 on PATH outside the repository; skipped');
});
