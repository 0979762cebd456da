import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from './free-port.ts';

/**
 * A local S3-compatible server a test or benchmark started: moto's server (PyPI `moto[server]`,
 * scripts/test-python-deps.sh installs it), loopback only, a free port, in memory. It serves what
 * LanceDB needs of S3: multipart upload, conditional put (If-None-Match, Lance's commit), list, delete.
 */
export interface TestS3 {
  endpoint: string;
  port: number;
  bucket: string;
  /** The storage options a LanceDB connection to `s3://<bucket>/…` takes here (no credentials: see `credentials`). */
  storageOptions: Record<string, string>;
  /** Environment variables that give the server's (dummy) credentials, as a machine's environment would. */
  credentials: Record<string, string>;
  stop(): Promise<void>;
}

const PYTHON = process.env.WINNOW_PYTHON ?? 'python3';

/** Why the S3 server cannot be started here, or null when it can. */
export function s3Unavailable(): string | null {
  const r = spawnSync(PYTHON, ['-c', 'import moto.server'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    return `moto's S3 server is not installed (${PYTHON} -c 'import moto.server' failed); the object-storage tests skip — run scripts/test-python-deps.sh (PyPI moto[server])`;
  return null;
}

/** Print the skip reason where a reader of the test log will see it. */
export function warnIfNoS3(): boolean {
  const why = s3Unavailable();
  if (why) console.warn(`note: ${why}`);
  return why !== null;
}

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await r.arrayBuffer();
    return r.status < 500;
  } catch {
    return false;
  }
}

/** Start moto's S3 server on 127.0.0.1 at a free port and create `bucket`; resolves once it answers. */
export async function startS3(bucket = 'winnow', readyMs = 60_000): Promise<TestS3> {
  const port = await freePort();
  const child: ChildProcess = spawn(PYTHON, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (c: Buffer) => {
    log = (log + String(c)).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const t0 = Date.now();
  while (!(await answers(`${endpoint}/`))) {
    if (child.exitCode !== null || Date.now() - t0 > readyMs) {
      await stop();
      throw new Error(
        `moto's S3 server did not start on ${endpoint}: ${log.trim().split('\n').at(-1) ?? ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const made = await fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
  await made.arrayBuffer();
  if (!made.ok) {
    await stop();
    throw new Error(`could not create bucket ${bucket} on ${endpoint}: HTTP ${made.status}`);
  }
  return {
    endpoint,
    port,
    bucket,
    storageOptions: { aws_endpoint: endpoint, aws_region: 'us-east-1', allow_http: 'true' },
    credentials: { AWS_ACCESS_KEY_ID: 'winnow-test', AWS_SECRET_ACCESS_KEY: 'winnow-test' },
    stop,
  };
}
