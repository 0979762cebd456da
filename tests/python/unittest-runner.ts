import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.ts';
import { type PythonResult, runPython } from '../helpers/python.ts';

/** python/tests: the Python package's own unittest files (each starts its own `winnow serve`). */
export const PY_TESTS = join(REPO_ROOT, 'python', 'tests');

/** `python -m unittest -v MODULE` in python/tests, with the package importable and Node 22 named. */
export function runUnittest(
  module: string,
  env: Record<string, string> = {},
): PythonResult & { ran: number } {
  const r = runPython('-m', ['unittest', '-v', module], {
    cwd: PY_TESTS,
    timeoutMs: 900_000,
    env: {
      PYTHONPATH: [join(REPO_ROOT, 'python'), PY_TESTS].join(':'),
      WINNOW_REPO: REPO_ROOT,
      WINNOW_NODE: process.execPath,
      ...env,
    },
  });
  const ran = /Ran (\d+) tests?/.exec(r.stderr);
  return { ...r, ran: ran ? Number(ran[1]) : 0 };
}
