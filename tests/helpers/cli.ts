import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { vi } from 'vitest';
import { scaled } from './slowdown.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const WINNOW_BIN = join(ROOT, 'bin', 'winnow.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the real `winnow` CLI in a child process (the same Node that runs the tests). Each start
 * loads only its command, but a command that opens tables loads LanceDB and Arrow first: keep it
 * for what only a process shows (exit codes, what reaches stderr, --help as a user types it) and
 * use winnowInProcess for the rest.
 * The time limit (default 240 s) grows with the run's slowdown factor (tests/helpers/slowdown.ts).
 */
export function winnow(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [WINNOW_BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: scaled(opts.timeoutMs ?? 240_000),
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

let inProcessChain: Promise<unknown> = Promise.resolve();

/**
 * The same CLI run in this process (src/cli/main.ts's `main`, which bin/winnow.js calls): the exit
 * code it returns and what it writes to stdout and stderr. No Node start-up, so many calls cost
 * little. Calls run one at a time (the capture is process-wide); `cwd` is entered for the call.
 */
export function winnowInProcess(args: string[], opts: { cwd?: string } = {}): Promise<CliResult> {
  const run = inProcessChain.then(() => runInProcess(args, opts.cwd));
  inProcessChain = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: string[], cwd: string | undefined): Promise<CliResult> {
  const { main } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const before = process.cwd();
  try {
    if (cwd !== undefined) process.chdir(cwd);
    return { code: await main(args), stdout, stderr };
  } finally {
    process.chdir(before);
    out.mockRestore();
    err.mockRestore();
  }
}

export const REPO_ROOT = ROOT;
