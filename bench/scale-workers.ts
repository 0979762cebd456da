// `winnow worker` processes for the scale benchmarks: started until each says it is ready, stopped
// with SIGTERM (a worker finishes its running jobs, then leaves).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'winnow.js');

/** Start `n` worker processes with these `winnow worker` arguments; resolves once every one is ready. */
export function startWorkerProcesses(
  n: number,
  args: readonly string[],
  what: string,
): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: n }, () => {
      const child = spawn(process.execPath, [BIN, 'worker', ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      return new Promise<ChildProcess>((resolve, reject) => {
        let err = '';
        child.stderr?.on('data', (c) => {
          err += String(c);
          if (/ready on/.test(err)) resolve(child);
        });
        child.once('exit', () => reject(new Error(`${what} exited: ${err.trim().split('\n').pop()}`)));
      });
    }),
  );
}

/** Stop worker processes and wait until every one has exited. */
export async function stopWorkerProcesses(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
        }),
    ),
  );
}
