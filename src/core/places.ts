import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Where Winnow keeps its database and run folders — resolved one way, everywhere:
 *
 * 1. a command-line flag (`--db DIR`, `--runs-dir DIR`), relative to the current folder;
 * 2. the config's own key (`db:`, `runsDir:`), relative to the config file;
 * 3. the environment (`WINNOW_DB`, `WINNOW_RUNS_DIR`), relative to the current folder;
 * 4. `.winnow/db` and `.winnow/runs` in the project folder: the nearest folder at or above the
 *    config file (or, for commands without a config, the current folder) that holds a `.winnow`
 *    folder, a `package.json` or a `.git`; if there is none, the config's (or current) folder.
 *
 * So `cd pipelines && winnow run gsm8k-tasks.yaml` uses the same database as running it from the
 * project root. Every path comes back absolute.
 */

const PROJECT_MARKERS = ['.winnow', 'package.json', '.git'];

/** The nearest folder at or above `from` holding a project marker; `from` itself if none does. */
export function projectRoot(from: string): string {
  const start = resolve(from);
  for (let dir = start; ; dir = dirname(dir)) {
    if (PROJECT_MARKERS.some((m) => existsSync(join(dir, m)))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export interface PlaceInputs {
  /** The flag's value, if given (relative to `cwd`). */
  flag?: string | undefined;
  /** The config key's value, if set (relative to `configDir`). */
  configValue?: string | undefined;
  /** The config file's folder; commands without a config leave it out. */
  configDir?: string | undefined;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

function place(kind: 'db' | 'runs', o: PlaceInputs): string {
  const cwd = o.cwd ?? process.cwd();
  const env = o.env ?? process.env;
  // A database URI (s3://bucket/path, memory://…) is LanceDB's to open, not a folder to resolve.
  const at = (base: string, p: string) =>
    kind === 'db' && /^[a-z][a-z0-9+.-]*:\/\//i.test(p) ? p : resolve(base, p);
  if (o.flag !== undefined && o.flag !== '') return at(cwd, o.flag);
  if (o.configValue !== undefined && o.configDir !== undefined) return at(o.configDir, o.configValue);
  const fromEnv = kind === 'db' ? env.WINNOW_DB : env.WINNOW_RUNS_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return at(cwd, fromEnv);
  return join(projectRoot(o.configDir ?? cwd), '.winnow', kind);
}

/** The database folder (see the rules above). */
export function resolveDbDir(o: PlaceInputs = {}): string {
  return place('db', o);
}

/** The folder holding one folder per run (see the rules above). */
export function resolveRunsDir(o: PlaceInputs = {}): string {
  return place('runs', o);
}
