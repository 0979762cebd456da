import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, WINNOW_BIN } from '../helpers/cli.ts';
import { pythonBin } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * docs/integrations.md's walkthrough, as written there: `winnow dev-server`, then `winnow run` of
 * the page's loop.yaml and tasks.jsonl (the standard-library trainer over winnow-trainer/1, weight
 * sync through vLLM's LoRA endpoints). Only the port (a free one) and the trainer's path (the
 * page runs from a folder inside the repository) are substituted.
 */
const noPython = pythonBin() === null;
if (noPython)
  console.warn('NOTE: skipping the dev-server walkthrough: no python3 on PATH (its trainer is Python)');

const DOC = readFileSync(join(REPO_ROOT, 'docs', 'integrations.md'), 'utf8');

/** The code block after `<!-- walkthrough: NAME -->`. */
function walkthroughFile(name: string): string {
  const m = new RegExp(
    `<!-- walkthrough: ${name.replace('.', '\\.')} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``,
  ).exec(DOC);
  if (!m) throw new Error(`docs/integrations.md has no walkthrough block ${name}`);
  return m[1]!;
}

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number>;
}

function start(args: string[], cwd: string): Proc {
  const child = spawn(process.execPath, [WINNOW_BIN, ...args], { cwd });
  const p: Proc = { child, stdout: '', stderr: '', exited: Promise.resolve(0) };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    p.stdout += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    p.stderr += c;
  });
  p.exited = new Promise((done) => child.on('close', (code) => done(code ?? -1)));
  return p;
}

async function listeningUrl(p: Proc): Promise<string> {
  for (;;) {
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(p.stdout);
    if (m) return m[1]!;
    if (p.child.exitCode !== null) throw new Error(`dev-server exited: ${p.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(noPython)(
  'docs/integrations.md walkthrough: winnow dev-server + stdlib trainer + weight sync',
  () => {
    const procs: Proc[] = [];
    afterAll(async () => {
      for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
    });

    it('dev-server binds 127.0.0.1 by default and answers --help', async () => {
      const help = start(['dev-server', '--help'], REPO_ROOT);
      expect(await help.exited).toBe(0);
      expect(help.stdout).toContain(
        'usage: winnow dev-server [--host HOST] [--port N] [--script FILE.jsonl]',
      );
      expect(help.stdout).toContain('(default 127.0.0.1)');
    }, 60_000);

    it('trains 5 versions and the dev server loads each of them: 5 adapter loads', async () => {
      const server = start(['dev-server', '--port', '0'], REPO_ROOT);
      procs.push(server);
      const url = await listeningUrl(server);
      const folder = join(tempDir('winnow-walkthrough-'), 'try-weight-sync');
      mkdirSync(folder);
      writeFileSync(join(folder, 'tasks.jsonl'), walkthroughFile('tasks.jsonl'));
      const yaml = walkthroughFile('loop.yaml')
        .replace('http://127.0.0.1:8000/v1', url)
        .replace('../examples/trainers/', `${join(REPO_ROOT, 'examples', 'trainers')}/`);
      expect(yaml).toContain(url);
      writeFileSync(join(folder, 'loop.yaml'), yaml);

      const run = start(['run', 'loop.yaml'], folder);
      expect(await run.exited, run.stderr.slice(-3000)).toBe(0);
      const loads = server.stderr.split('\n').filter((l) => l.startsWith('load '));
      const ckpt = (v: number) =>
        join(
          folder,
          '.winnow',
          'runs',
          'try-weight-sync-1',
          'trainer',
          'checkpoints',
          `v${String(v).padStart(6, '0')}`,
        );
      expect(loads).toEqual([1, 2, 3, 4, 5].map((v) => `load try-weight-sync-1-v${v} from ${ckpt(v)}: 200`));
      const metrics = readFileSync(
        join(folder, '.winnow', 'runs', 'try-weight-sync-1', 'metrics.jsonl'),
        'utf8',
      )
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { step: number; trainSteps: number; explorerVersion: number });
      expect(metrics.map((m) => [m.step, m.trainSteps, m.explorerVersion])).toEqual([
        [1, 1, 0],
        [2, 2, 1],
        [3, 3, 2],
        [4, 4, 3],
        [5, 5, 4],
      ]);
    }, 300_000);
  },
);
