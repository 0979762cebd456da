import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { captureMain } from '../cli/capture.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { spawnWinnow } from './harness.ts';
import { pipelineYaml, STACK_TRACE } from './pipeline-cli.ts';
import { writeRftYaml } from './rft-files.ts';
import { HAS_PROC_NET, watchInetSockets } from './sockets.ts';

const dir = tempDir('winnow-security-');
writeFileSync(join(dir, 'ok.csv'), 'id,question,answer\na,What is 1 + 1?,#### 2\nb,What is 2 + 2?,#### 4\n');
/** Importing this module leaves a marker file: the tests check it never appears. */
const MARKER = join(dir, 'pwned');
writeFileSync(
  join(dir, 'evil.ts'),
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(MARKER)}, 'imported');\nexport default { name: 'evil', kind: 'map', params: {}, create: () => ({}) };\nexport const exec = () => 1;\n`,
);
/** A user operator the config names by module path: the one way code gets in. */
writeFileSync(
  join(dir, 'shout.ts'),
  [
    `import { z } from ${JSON.stringify(join(REPO_ROOT, 'node_modules', 'zod', 'index.js'))};`,
    'export const shout = {',
    "  name: 'shout', kind: 'map', description: 'upper-cases prompts', params: z.object({}),",
    '  create: () => ({ name: "shout", kind: "map", process: (batch) => ({ rows: batch.map((t) => ({ ...t, prompt: t.prompt.toUpperCase() })), dropped: [] }) }),',
    '};',
    '',
  ].join('\n'),
);

/**
 * `winnow run FILE` in this process (the CLI's own main, stdout/stderr captured): a config refusal
 * is the same code whether or not a process starts, and a Node start per probe made this file one
 * of the slowest. Runs one at a time (the capture is process-wide). The tests below that depend on
 * a process (its cwd, its sockets) still spawn one.
 */
async function runYaml(name: string, text: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return { ...(await captureMain(['run', file, '--db', join(dir, `db-${name}`)])), file };
}

async function inTurn<T, R>(items: readonly T[], fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const [i, item] of items.entries()) out.push(await fn(item, i));
  return out;
}

describe('a config cannot make winnow run code it did not name as a module path', () => {
  it('operator names that look like paths or packages are unknown operators, not imports', async () => {
    const results = await inTurn(
      [
        ['op-path', './evil.ts'],
        ['op-parent', '../evil.ts'],
        ['op-builtin', 'node:child_process'],
      ],
      ([name, op]) => runYaml(name!, pipelineYaml('ok.csv', [`  - op: ${op}`])),
    );
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/operators\[1\]\.op: unknown operator '[^']+' \(known: /);
      expect(r.stderr).not.toMatch(STACK_TRACE);
    }
    expect(existsSync(MARKER)).toBe(false);
  });

  it('module: entries are only ever files next to the config: built-ins, URLs and data: URLs are not loaded', async () => {
    const attempts = [
      'node:child_process',
      'child_process',
      'https://example.com/op.js',
      'data:text/javascript,1',
    ];
    const results = await inTurn(attempts, (m, i) =>
      runYaml(
        `module-${i}`,
        pipelineYaml('ok.csv', [`  - module: ${JSON.stringify(m)}`, '    export: exec']),
      ),
    );
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('operators[1].module: cannot load operator module ');
      expect(r.stderr).toContain(`${dir}/`); // resolved as a file path inside the config's folder
    }
    expect(existsSync(MARKER)).toBe(false);
  });

  it('a reward module must be a file path: { module: node:child_process } is refused before anything is imported', async () => {
    const named = writeRftYaml(dir, 'reward-builtin', {}, (c) => {
      (c.explorer as Record<string, unknown>).reward = { module: 'node:child_process', export: 'exec' };
    });
    const pathy = writeRftYaml(dir, 'reward-name', {}, (c) => {
      (c.explorer as Record<string, unknown>).reward = './evil.ts';
    });
    const r1 = await captureMain(['run', named.file]);
    const r2 = await captureMain(['run', pathy.file]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(
      `error: ${named.file}: explorer.reward.module: 'node:child_process' is not a file path (write a path starting with ./ or ../ (relative to the config file) or an absolute path)\n`,
    );
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("explorer.reward: unknown reward function './evil.ts'");
    expect(existsSync(MARKER)).toBe(false);
  });

  it('a module path the user wrote is loaded and runs (the one way code gets in)', async () => {
    const r = await runYaml(
      'user-module',
      pipelineYaml('ok.csv', ['  - module: ./shout.ts', '    export: shout']),
    );
    expect(r.code).toBe(0);
    const tasks = await (await TaskStore.open(join(dir, 'db-user-module'))).read();
    expect(tasks.map((t) => t.prompt).sort()).toEqual(['WHAT IS 1 + 1?', 'WHAT IS 2 + 2?']);
  });

  it('__proto__ keys in a YAML config pollute no prototype: refused where keys are fixed (top level, operator params), inert in mapping records', async () => {
    const top = await runYaml('proto-top', `${pipelineYaml('ok.csv')}__proto__:\n  polluted: true\n`);
    expect(top.code).toBe(2);
    expect(top.stderr).toContain(`${top.file}: __proto__: unknown key '__proto__' (valid keys: `);

    const file = join(dir, 'proto-nested.yaml');
    writeFileSync(
      file,
      [
        'name: proto',
        'input: { path: ok.csv }',
        'mapping:',
        '  taskset: proto',
        '  id: id',
        '  prompt: question',
        '  meta: { __proto__: question, kept: question }',
        '  features: { __proto__: id }',
        'operators:',
        '  - op: length_filter',
        '    params:',
        '      __proto__: { minWords: 1000, polluted: true }',
        '',
      ].join('\n'),
    );
    // Operator params are strict objects: a __proto__ key there is refused like any unknown key.
    await expect(
      runTaskPipelineFile(file, { registry: taskOperatorRegistry(), dbDir: join(dir, 'db-proto') }),
    ).rejects.toThrow(`${file}: operators[0].params.__proto__: unknown key '__proto__' (valid keys: `);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect('minWords' in Object.prototype).toBe(false);
    // In the mapping's records (meta, features) __proto__ is inert: it sets nothing.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/ {4}params:\n.*\n/, ''));
    const report = await runTaskPipelineFile(file, {
      registry: taskOperatorRegistry(),
      dbDir: join(dir, 'db-proto'),
    });
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(report.tasksOut).toBe(2);
    const tasks = await (await TaskStore.open(join(dir, 'db-proto'))).read();
    for (const t of tasks) {
      expect(Object.getPrototypeOf(t.meta)).toBe(Object.prototype);
      expect(Object.keys(t.meta)).toEqual(['kept']);
      expect(t.features).toEqual({});
    }
  });

  it('YAML alias bombs are refused instead of expanding', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const next = String.fromCharCode(98 + i);
        return `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
      }),
      pipelineYaml('ok.csv'),
    ].join('\n');
    const r = await runYaml('alias-bomb', bomb);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${r.file}: invalid YAML: Excessive alias count indicates a resource exhaustion attack\n`,
    );
    expect(r.stderr).not.toMatch(STACK_TRACE);
  });
});

// Both tests spawn a run and wait on it: side by side they take the time of one.
describe.concurrent('paths are resolved and reported', () => {
  it('a task pipeline run from another folder reports the absolute dataset file and database folder', async () => {
    const sub = join(dir, 'project', 'pipelines');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'rel.yaml'), pipelineYaml('../../ok.csv'));
    const cwd = join(dir, 'project');
    const [r, json] = await Promise.all([
      spawnWinnow(['run', 'pipelines/rel.yaml', '--db', 'out/db'], { cwd }),
      spawnWinnow(['run', 'pipelines/rel.yaml', '--db', 'out/db-json', '--json'], { cwd }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`files: ${join(dir, 'ok.csv')}\n`);
    expect(r.stdout).toContain(
      `2 tasks passed the operators; table 'tasks' in ${join(cwd, 'out', 'db')}: 2 new`,
    );
    const report = JSON.parse(json.stdout) as { files: string[]; dbDir: string };
    expect(report.files).toEqual([join(dir, 'ok.csv')]);
    expect(report.dbDir).toBe(join(cwd, 'out', 'db-json'));
  });

  it('an RFT run reports its task file, held-out file, database and run folder as absolute paths', async () => {
    const { file, runDir } = writeRftYaml(dir, 'rft-paths', {
      lifecycle: { mode: 'sync', steps: 1, checkpointEvery: 1 },
    });
    const cwd = join(dir, 'project');
    const r = await spawnWinnow(['run', relative(cwd, file), '--db', 'rft-db', '--json'], { cwd });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { paths: Record<string, string>; runDir: string };
    expect(report.paths).toEqual({
      tasks: join(REPO_ROOT, 'datasets', 'arithmetic', 'train.jsonl'),
      'held-out': join(REPO_ROOT, 'datasets', 'arithmetic', 'heldout.jsonl'),
      database: join(cwd, 'rft-db'),
      'run folder': runDir,
    });
    expect(report.runDir).toBe(join(dir, 'rft-paths-runs', 'rft-paths-1'));
    expect(existsSync(join(cwd, 'rft-db', 'rft-paths-1_experiences.lance'))).toBe(true);
  });
});

describe.skipIf(!HAS_PROC_NET)('nothing listens on a network port', () => {
  it('the socket watch sees a process that does listen (so the checks below can fail)', async () => {
    const p = spawn(
      process.execPath,
      [
        '-e',
        "require('node:net').createServer().listen(0, '127.0.0.1', () => setTimeout(() => process.exit(0), 400))",
      ],
      { stdio: 'ignore' },
    );
    const done = new Promise((r) => p.on('close', r));
    const seen = await watchInetSockets(p.pid!, done);
    expect(seen.some((s) => s.proto === 'tcp' && s.state === '0A')).toBe(true); // 0A = LISTEN
  });

  it('winnow run of a task pipeline and of a short RFT run opens no TCP or UDP socket at all', async () => {
    const rft = writeRftYaml(dir, 'rft-sockets', {
      lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 1 },
    });
    writeFileSync(join(dir, 'sockets.yaml'), pipelineYaml('ok.csv'));
    // Both processes at once, each watched on its own (a Node start is most of their time).
    const watched = await Promise.all(
      [
        ['run', join(dir, 'sockets.yaml'), '--db', join(dir, 'db-sockets')],
        ['run', rft.file],
      ].map(async (args) => {
        let pid = 0;
        const finished = spawnWinnow(args, {
          onSpawn: (p) => {
            pid = p;
          },
        });
        const [r, seen] = await Promise.all([finished, watchInetSockets(pid, finished)]);
        return { args, code: r.code, seen };
      }),
    );
    for (const w of watched) expect([w.args, w.code, w.seen]).toEqual([w.args, 0, []]);
    // And in this process, after a whole pipeline ran in it: no server handle is alive.
    await runTaskPipelineFile(join(dir, 'sockets.yaml'), {
      registry: taskOperatorRegistry(),
      dbDir: join(dir, 'db-sockets-inproc'),
    });
    expect(process.getActiveResourcesInfo().filter((k) => /TCP|UDP|Server/i.test(k))).toEqual([]);
  });
});
