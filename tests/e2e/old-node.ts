import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.ts';

/**
 * A Node older than 22 on PATH outside the repository (the machines' system Node 20), to check
 * what bin/winnow.js does when started by it; undefined where there is none.
 */
export function findOldNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || resolve(dir).startsWith(REPO_ROOT)) continue;
    const bin = join(dir, 'node');
    if (!existsSync(bin)) continue;
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    const major = Number(/^v(\d+)\./.exec(v)?.[1]);
    if (major > 0 && major < 22) return bin;
  }
  return undefined;
}

/** The environment of the test process without npm's per-script variables (npm_config_*, …). */
export function envWithoutNpm(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.toLowerCase().startsWith('npm_') && k !== 'INIT_CWD') env[k] = v;
  }
  return { ...env, ...extra };
}
