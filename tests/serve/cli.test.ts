import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/serve/bind-policy.ts';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { serveConfig } from './helpers.ts';

const dir = tempDir('winnow-serve-cli-');
const cfg = serveConfig(dir);
const typo = join(dir, 'typo.yaml');
const tasks = join(dir, 'tasks.yaml');
let taken: Server;
let takenPort = 0;

beforeAll(async () => {
  writeFileSync(typo, readFileSync(cfg, 'utf8').replace('type: bots', 'type: botz'));
  writeFileSync(tasks, 'name: t\ninput:\n  path: x.jsonl\nmapping:\n  taskset: t\n  prompt: q\n');
  taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  takenPort = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((done) => taken.close(() => done()));
});

/** Each: the command line, its exit code and the one line it prints. */
const CASES: ReadonlyArray<readonly [() => string[], number, RegExp]> = [
  [() => [], 2, /^error: winnow serve needs the RFT config: winnow serve CONFIG\.yaml/],
  [() => [tasks], 2, /: kind: winnow serve needs an RFT config \(kind: rft\), got no kind \(serve opens/],
  [() => [cfg, '--host', '0.0.0.0'], 2, /^error: --host: refusing to serve on 0\.0\.0\.0 without a token/],
  [
    () => [cfg, '--host', '192.168.1.5'],
    2,
    /^error: --host: refusing to serve on 192\.168\.1\.5 without a token/,
  ],
  [
    () => [cfg, '--token', 'abc'],
    2,
    /^error: --token: the token is 3 character\(s\) long; at least 8 are needed/,
  ],
  [() => [cfg, '--port', '70000'], 2, /^error: --port expects an integer 0–65535, got '70000'$/],
  [() => [cfg, '--steps', '3'], 2, /^error: unknown option '--steps' for winnow serve/],
  [() => [cfg, cfg], 2, /^error: winnow serve takes at most 1 argument\(s\)/],
  [() => [typo], 2, /typo\.yaml: selector\.type: .*'botz'.*did you mean 'bots'/],
  [() => [cfg, '--resume', '--run', 'nope'], 2, /no run 'nope' to resume/],
  [
    () => [cfg, '--port', String(takenPort)],
    1,
    /^error: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE \(the port is taken/,
  ],
];

describe('winnow serve: bad invocations fail at the door with one line and change nothing', () => {
  it.each(CASES.map(([args, code, re], i) => [i, args, code, re] as const))(
    'case %s',
    async (_i, args, code, re) => {
      const r = await captureMain(['serve', ...args()]);
      const lines = r.stderr.trim().split('\n');
      expect([r.code, lines.length], r.stderr).toEqual([code, 1]);
      expect(lines[0]).toMatch(re);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
      // Validate, then act: nothing was written.
      expect(existsSync(join(dir, 'db'))).toBe(false);
      expect(existsSync(join(dir, 'runs'))).toBe(false);
    },
    60_000,
  );
});

describe('isLoopback', () => {
  it('accepts only addresses of this machine', () => {
    const yes = ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST'];
    const no = [
      '0.0.0.0',
      '::',
      '192.168.1.5',
      '10.0.0.1',
      'example.com',
      '128.0.0.1',
      '',
      '::ffff:10.0.0.1',
    ];
    expect(yes.map(isLoopback)).toEqual(yes.map(() => true));
    expect(no.map(isLoopback)).toEqual(no.map(() => false));
  });
});

describe('winnow serve: a start that fails after binding the port', () => {
  it('a corrupt checkpoint on --resume: exit 1 naming the file, the run recorded as failed, the port free again', async () => {
    const d = tempDir('winnow-serve-corrupt-');
    const file = serveConfig(d);
    const { startServe } = await import('../../src/serve/serve-start.ts');
    const run = await startServe({ configFile: file, host: '127.0.0.1', port: 0 });
    await fetch(`${run.url}/v1/select`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    await run.stop('test');
    const state = join(d, 'runs', 'serve-test-1', 'serve', 'checkpoints', 'step-000001', 'state.json');
    writeFileSync(state, '{"step": 1, "trainSteps": "x"}');
    // A port that is free now; after the failed start it must be free again.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((done) => probe.close(() => done()));
    const r = await captureMain(['serve', file, '--resume', '--port', String(port)]);
    // The log of the start (stderr), then the one error line.
    const lines = r.stderr.trim().split('\n');
    expect([r.code, lines.length]).toEqual([1, 3]);
    expect(lines.slice(0, 2)).toEqual([
      `database: ${join(d, 'db')}`,
      `run folder: ${join(d, 'runs', 'serve-test-1')}`,
    ]);
    expect(lines[2]).toMatch(
      /^error: .*step-000001\/state\.json: checkpoint state does not match its schema/,
    );
    const again = createServer();
    await new Promise<void>((done, fail) => {
      again.once('error', fail);
      again.listen(port, '127.0.0.1', done);
    });
    await new Promise<void>((done) => again.close(() => done()));
    const { RunTable } = await import('../../src/store/run-table.ts');
    expect((await (await RunTable.open(join(d, 'db'))).get('serve-test-1'))?.status).toBe('failed');
  }, 60_000);
});
