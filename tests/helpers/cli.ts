import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
export const WINNOW_BIN = join(ROOT, 'bin', 'winnow.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real `winnow` CLI in a child process (the same Node that runs the tests). */
export function winnow(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [WINNOW_BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: opts.timeoutMs ?? 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export const REPO_ROOT = ROOT;
