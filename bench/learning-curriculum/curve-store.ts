// `bench curriculum --curves FILE`: every finished run is appended to FILE as one JSON line, and a
// later run with the same file reuses the runs it finds there (same commit, learner, settings,
// method, seed and budget), so a long comparison survives being stopped and can be reported from what finished
// (`--report-only`: only the seeds every method has completed).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../../src/core/errors.ts';
import type { LearnerSettings, LearningCurve } from './learner.ts';

interface StoredRun {
  key: string;
  curve: LearningCurve;
}

/** The checked-out commit, with '+dirty' when tracked files differ from it ('unknown' outside git). */
function codeCommit(): string {
  const git = (args: string[]) => spawnSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8' });
  const head = git(['rev-parse', 'HEAD']);
  if (head.status !== 0) return 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? '+dirty' : ''}`;
}

export class CurveStore {
  private readonly runs = new Map<string, LearningCurve>();
  private readonly file: string | undefined;
  private readonly context: string;

  constructor(
    file: string | undefined,
    context: { learner: string; settings: LearnerSettings; extra: unknown },
  ) {
    this.file = file;
    // The code's commit is part of the key: a run stored by other code is never reused silently.
    this.context = JSON.stringify({ ...context, commit: codeCommit() });
    if (!file || !existsSync(file)) return;
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .forEach((line, i) => {
        let row: StoredRun;
        try {
          row = JSON.parse(line) as StoredRun;
        } catch {
          throw new ConfigError({
            path: 'curves',
            message: `${file} line ${i + 1} is not JSON (a run stopped while writing?)`,
            hint: 'remove that line and resume',
          });
        }
        this.runs.set(row.key, row.curve);
      });
  }

  private key(method: string, seed: number, budget: number | null): string {
    return `${this.context}|${method}|${seed}|${budget}`;
  }

  get(method: string, seed: number, budget: number | null): LearningCurve | undefined {
    return this.runs.get(this.key(method, seed, budget));
  }

  put(method: string, seed: number, budget: number | null, curve: LearningCurve): void {
    const key = this.key(method, seed, budget);
    this.runs.set(key, curve);
    if (this.file) appendFileSync(this.file, `${JSON.stringify({ key, curve } satisfies StoredRun)}\n`);
  }

  /** Whether a run of `method` on `seed` is stored, whatever its budget. */
  has(method: string, seed: number): boolean {
    const prefix = `${this.context}|${method}|${seed}|`;
    for (const k of this.runs.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }
}
