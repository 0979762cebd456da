import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb } from './fixture.ts';

const BIN = join(import.meta.dirname, '../../bin/winnow.js');

/** Start `winnow studio …` as its own process; resolves with the URL it prints, and a stop function. */
function startCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'studio', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += String(c)));
  return new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += String(c);
      const m = /^studio: (\S+)$/m.exec(out);
      if (m)
        done({
          url: m[1]!,
          stop: () =>
            new Promise((stopped) => {
              child.once('exit', (code) => stopped(code));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => fail(new Error(`winnow studio exited ${code}: ${err}`)));
  });
}

describe('winnow studio (the command)', () => {
  const dir = tempDir('winnow-studio-cli-');
  let db: string;
  beforeAll(async () => {
    db = (await makeStudioDb(dir)).db;
  }, 60_000);
  const stops: Array<() => Promise<number | null>> = [];
  afterAll(async () => {
    for (const s of stops) await s();
  });

  it('listens on a free loopback port, prints its URL, serves the database, stops on SIGTERM with 0', async () => {
    const s = await startCli(['--db', db, '--port', '0', '--user', 'carol']);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const info = await call(s.url, '/api/info');
    expect(info.body).toMatchObject({ user: 'carol', readOnly: false });
    expect(await s.stop()).toBe(0);
  }, 30_000);

  it('bound to all addresses without --token, it generates one and prints it in the URL; requests without it get 401', async () => {
    const s = await startCli(['--db', db, '--port', '0', '--host', '0.0.0.0', '--read-only'], {
      WINNOW_STUDIO_TOKEN: '',
    });
    stops.push(s.stop);
    const m = /^http:\/\/0\.0\.0\.0:(\d+)\/\?token=([0-9a-f]{32})$/.exec(s.url);
    expect(m).not.toBeNull();
    const base = `http://127.0.0.1:${m![1]}/`;
    expect((await call(base, '/api/info')).status).toBe(401);
    const ok = await call(base, '/api/info', { token: m![2]! });
    expect(ok.body).toMatchObject({ readOnly: true });
  }, 30_000);

  it('bad flags: one line and exit 2, nothing started', async () => {
    const missing = await captureMain(['studio', '--db', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no database folder at .*nope \(pass --db DIR; winnow run creates it\)/);
    const short = await captureMain(['studio', '--db', db, '--token', 'abc']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--token is 3 character\(s\) long; at least 8 are needed/);
    const port = await captureMain(['studio', '--db', db, '--port', '70000']);
    expect(port.code).toBe(2);
  });

  it('lists experience groups a page at a time with their reward summary', async () => {
    const { startFixtureStudio } = await import('./fixture.ts');
    const server = await startFixtureStudio(dir, { db, runs: join(dir, 'runs') });
    try {
      const r = await call(server.url, '/api/groups?table=exps&limit=2&offset=1');
      expect(r.body.total).toBe(4);
      expect(r.body.unlabelled).toBe(4);
      expect(r.body.groups).toEqual([
        { groupId: 'g2', taskId: 't2', step: 1, rollouts: 2, meanReward: 0.5, rewardStd: 0, labelled: false },
        {
          groupId: 'g3',
          taskId: 't01',
          step: 1,
          rollouts: 2,
          meanReward: 0.375,
          rewardStd: 0.125,
          labelled: false,
        },
      ]);
      const bad = await call(server.url, '/api/groups?table=tasks');
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('not_an_experience_table');
    } finally {
      await server.close();
    }
  });
});
