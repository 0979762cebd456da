import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from './slowdown.ts';

/**
 * Python for the tests that check our files with Python's own libraries (pyarrow, pandas, HF
 * datasets, TRL). Those packages are optional: scripts/test-python-deps.sh tries to install them
 * (into the user site, or a venv at .cache/python, which is preferred here when it exists), and a
 * test that needs a missing one is skipped with a visible note — never failed.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const VENV_PYTHON = join(ROOT, '.cache', 'python', 'bin', 'python');

let python: string | null | undefined;

/** The Python to run (.cache/python's when it exists, else `python3`), or null when there is none. */
export function pythonBin(): string | null {
  if (python !== undefined) return python;
  for (const candidate of [VENV_PYTHON, 'python3']) {
    if (candidate === VENV_PYTHON && !existsSync(candidate)) continue;
    const r = spawnSync(candidate, ['-c', 'import sys; print(sys.version_info[0])'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() === '3') {
      python = candidate;
      return python;
    }
  }
  python = null;
  return python;
}

const importable = new Map<string, boolean>();

/** Whether `import <module>` works in that Python (cached per process). */
export function pythonHas(module: string): boolean {
  const known = importable.get(module);
  if (known !== undefined) return known;
  const bin = pythonBin();
  // Run from a neutral folder and ask for a real module: from the repository's root, `import
  // datasets` finds our own datasets/ folder as an empty namespace package.
  const ok =
    bin !== null &&
    spawnSync(bin, ['-c', `import ${module}; assert getattr(${module}, '__file__', None)`], {
      encoding: 'utf8',
      timeout: scaled(120_000),
      cwd: tmpdir(),
    }).status === 0;
  importable.set(module, ok);
  return ok;
}

/**
 * The modules of `modules` that cannot be imported; when any is missing, prints one visible note
 * naming them and what is skipped. Use as `it.skipIf(missingPython(['pyarrow'], 'pyarrow readers').length > 0)`.
 */
export function missingPython(modules: readonly string[], what: string): string[] {
  const missing = modules.filter((m) => !pythonHas(m));
  if (missing.length > 0) {
    const why = pythonBin() === null ? 'no python3 on PATH' : `python cannot import ${missing.join(', ')}`;
    console.warn(
      `NOTE: skipping ${what}: ${why} (scripts/test-python-deps.sh installs them; pip install ${missing.join(' ')})`,
    );
  }
  return missing;
}

export interface PythonResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a Python script file with arguments; the result carries its exit code and output. */
export function runPython(
  script: string,
  args: readonly string[] = [],
  opts: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {},
): PythonResult {
  const bin = pythonBin();
  if (bin === null) return { code: -1, stdout: '', stderr: 'no python3 on PATH' };
  const r = spawnSync(bin, [script, ...args], {
    encoding: 'utf8',
    timeout: scaled(opts.timeoutMs ?? 300_000),
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...opts.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}
