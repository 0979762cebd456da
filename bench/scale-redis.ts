import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

/** A redis-server a test or `bench scale` started: loopback only, a free port, a temp folder, no persistence. */
export interface TestRedis {
  port: number;
  url: string;
  /** The server's process id (benchmarks read its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const SERVER = process.env.WINNOW_REDIS_SERVER ?? 'redis-server';

/** Why redis-server cannot be used here, or null when it can (scripts/test-queue-deps.sh installs it). */
export function redisUnavailable(): string | null {
  const r = spawnSync(SERVER, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    return `redis-server not found (${SERVER}); the scale-out tests skip — run scripts/test-queue-deps.sh (Debian package redis-server)`;
  return null;
}

/** Print the skip reason where a reader of the test log will see it. */
export function warnIfNoRedis(): boolean {
  const why = redisUnavailable();
  if (why) console.warn(`note: ${why}`);
  return why !== null;
}

/** Start redis-server on 127.0.0.1 at a free port; resolves once it answers. */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'winnow-redis-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(
      SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout?.on('data', (c) => {
      out += String(c);
    });
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      child.stdout?.on('data', () => {
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        pid: child.pid,
        stop: async () => {
          if (child.exitCode === null) {
            const gone = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await gone;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    // Another process took the port between the probe and the bind: try another one.
    if (attempt >= 3) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start: ${out.split('\n').slice(-3).join(' ')}`);
    }
  }
}
