import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/store/connection.ts';
import { REPO_ROOT, WINNOW_BIN } from '../helpers/cli.ts';

export interface KillPlan {
  /** Polled every few ms (and on each stderr chunk) with the stderr so far; once true, the kill is armed. */
  when: (stderr: string) => boolean;
  /** SIGKILL this many ms after the trigger fired. */
  delayMs: number;
}

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when our SIGKILL ended the process (false: it finished before the kill landed). */
  killed: boolean;
}

/**
 * Run the real `winnow` CLI in a child process (the test's Node). With `kill`, SIGKILL it once the
 * plan's trigger fires plus its delay; the result says whether the kill landed or the run finished.
 */
export function spawnWinnow(
  args: string[],
  opts: {
    kill?: KillPlan;
    cwd?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /** Called with the child's pid right after it starts. */
    onSpawn?: (pid: number) => void;
  } = {},
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [WINNOW_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (p.pid !== undefined) opts.onSpawn?.(p.pid);
    let stdout = '';
    let stderr = '';
    let armed = false;
    let sent = false;
    let poll: NodeJS.Timeout | undefined;
    const check = () => {
      if (!opts.kill || armed || !opts.kill.when(stderr)) return;
      armed = true;
      if (poll) clearInterval(poll);
      setTimeout(() => {
        if (p.exitCode === null && p.signalCode === null) {
          sent = true;
          p.kill('SIGKILL');
        }
      }, opts.kill.delayMs);
    };
    p.stdout.on('data', (d) => {
      stdout += String(d);
    });
    p.stderr.on('data', (d) => {
      stderr += String(d);
      check();
    });
    if (opts.kill) poll = setInterval(check, 3);
    const guard = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    p.on('error', reject);
    p.on('close', (code, signal) => {
      clearTimeout(guard);
      if (poll) clearInterval(poll);
      resolve({ code, signal, stdout, stderr, killed: sent && signal === 'SIGKILL' });
    });
  });
}

/** Committed versions of a LanceDB table (manifest files), 0 when the table does not exist yet. */
export function versionCount(dbDir: string, table: string): number {
  const dir = join(dbDir, `${table}.lance`, '_versions');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).filter((f) => f.endsWith('.manifest')).length;
}

/** Whole rows of a table, read through a fresh query. */
export async function tableRows(dbDir: string, table: string): Promise<Record<string, unknown>[]> {
  const conn = await connect(dbDir);
  if (!(await conn.tableNames()).includes(table)) return [];
  const t = await conn.openTable(table);
  return (await t.query().toArray()) as Record<string, unknown>[];
}

/** Non-empty lines of a text file (none when it does not exist). */
export function fileLines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : [];
}
