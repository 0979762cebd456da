import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';
import { scaled } from '../helpers/slowdown.ts';
import { tempDir } from '../helpers/tmp.ts';
import { envWithoutNpm, findOldNode } from './old-node.ts';

// The package as a user gets it: `npm pack` of the repository (prepack builds dist/), installed
// into a scratch project outside the repository, then the `winnow` bin and the library import
// used from that project's folder.
const NAME = '@winnow-rft/winnow';
const root = tempDir('winnow-install-', tmpdir());
const scratch = join(root, 'scratch');

// The Node running the tests (the repository's Node 22) comes first on PATH, as a user's Node ≥ 22 would.
const env = envWithoutNpm({ PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` });

function sh(cmd: string, args: string[], cwd: string, timeoutMs = 240_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd,
    env,
    encoding: 'utf8',
    timeout: scaled(timeoutMs),
    maxBuffer: 64 * 1024 * 1024,
  });
}
const said = (r: SpawnSyncReturns<string>) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`.slice(-4000);

const OFFLINE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network/i;
let skipReason: string | undefined;

// 12 rows: 10 distinct tasks, one repeated id and one row without a question.
const ROWS = [
  ...Array.from({ length: 10 }, (_, i) => ({
    id: `s${i + 1}`,
    question: `What is ${i + 1} plus ${i + 2}?`,
    answer: `#### ${2 * i + 3}`,
  })),
  { id: 's4', question: 'What is 4 plus 5?', answer: '#### 9' },
  { id: 's12', answer: '#### 1' },
];
const PIPELINE = `name: scratch
input:
  path: tasks.jsonl
mapping:
  taskset: scratch
  id: id
  prompt: question
  answer: answer
operators:
  - op: extract_answer
    params: { mode: gsm8k }
`;

beforeAll(() => {
  const packs = join(root, 'packs');
  mkdirSync(packs);
  const pack = sh('npm', ['pack', '--pack-destination', packs], REPO_ROOT);
  expect(pack.status, `npm pack (prepack builds dist/):\n${said(pack)}`).toBe(0);
  const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toEqual(['winnow-rft-winnow-0.1.0.tgz']);

  mkdirSync(scratch);
  // What `npm init -y` writes, less one npm start.
  writeFileSync(
    join(scratch, 'package.json'),
    `${JSON.stringify({ name: 'scratch', version: '1.0.0', private: true })}\n`,
  );
  // The npm cache on these machines holds every dependency; winnow itself comes from the tarball.
  const install = sh(
    'npm',
    ['install', join(packs, tarballs[0]!), '--prefer-offline', '--no-audit', '--no-fund'],
    scratch,
    300_000,
  );
  if (install.status !== 0 && OFFLINE.test(install.stderr)) {
    skipReason = `npm install could not reach the registry: ${install.stderr.split('\n').find((l) => OFFLINE.test(l))}`;
    console.warn(`install-from-tarball: SKIPPED — ${skipReason}`);
    return;
  }
  expect(install.status, `npm install <tarball>:\n${said(install)}`).toBe(0);

  writeFileSync(join(scratch, 'tasks.jsonl'), ROWS.map((r) => `${JSON.stringify(r)}\n`).join(''));
  writeFileSync(join(scratch, 'tasks.yaml'), PIPELINE);
}, scaled(420_000));

describe(`${NAME} installed from its tarball into a project outside the repository`, () => {
  it(
    'npx winnow run lands exactly the 10 good tasks; npx winnow inspect lists them from that folder',
    (ctx) => {
      if (skipReason) ctx.skip();
      const run = sh('npx', ['winnow', 'run', 'tasks.yaml'], scratch);
      expect(run.status, said(run)).toBe(0);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace

      const inspect = sh('npx', ['winnow', 'inspect', '--json'], scratch);
      expect(inspect.status, said(inspect)).toBe(0);
      const tables = (JSON.parse(inspect.stdout) as { tables: { table: string; rows: number }[] }).tables;
      const rows = Object.fromEntries(tables.map((t) => [t.table, t.rows]));
      expect(rows.tasks).toBe(10);
      expect(rows.rejected).toBe(2);
      // Which 10 tasks landed: the next test reads their ids through the installed library.
    },
    scaled(180_000),
  );

  it(
    `import('${NAME}') and '${NAME}/tiny' work there and read the tasks the CLI landed`,
    (ctx) => {
      if (skipReason) ctx.skip();
      const script = `
      const m = await import('${NAME}');
      const store = await m.TaskStore.open('.winnow/db');
      const ids = (await store.read()).map((t) => t.id).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      const tiny = await import('${NAME}/tiny');
      console.log(JSON.stringify({ ids, runCli: typeof m.runCli, tiny: typeof tiny.loadWarmStart }));
    `;
      const r = sh(process.execPath, ['--input-type=module', '-e', script], scratch);
      expect(r.status, said(r)).toBe(0);
      expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({
        ids: ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10'],
        runCli: 'function',
        tiny: 'function',
      });
    },
    scaled(120_000),
  );

  it('the installed copy ships compiled JavaScript, not the .ts sources', (ctx) => {
    if (skipReason) ctx.skip();
    const pkg = join(scratch, 'node_modules', '@winnow-rft', 'winnow');
    const top = readdirSync(pkg).sort();
    expect(top).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json']);
    expect(readdirSync(join(pkg, 'dist')).sort()).toEqual(['bench', 'datasets', 'src']);
  });

  it('started by a Node older than 22 with no newer one installed beside it: one line, exit 1', (ctx) => {
    const old = findOldNode();
    if (skipReason || old === undefined) ctx.skip();
    const bin = join(scratch, 'node_modules', '.bin', 'winnow');
    const r = spawnSync(old!, [bin, 'inspect'], {
      cwd: scratch,
      env,
      encoding: 'utf8',
      timeout: scaled(60_000),
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^winnow needs Node >= 22 \(this is 2\d\.\d+\.\d+\): /);
  });
});
