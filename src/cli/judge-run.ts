import { existsSync } from 'node:fs';
import { WinnowError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { UsageError } from '../core/usage-error.ts';
import { findRun } from '../inspect/table-target.ts';
import { loadTaskSource } from '../lifecycle/pipeline/task-source.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import { readStoredRunConfig, runPlaces } from '../lifecycle/run/run-plan.ts';
import { lanceRows, type RowSourceInfo } from './judge-rows.ts';

/**
 * `winnow judge --run ID`: the run's experiences with each one's reference answer. The answers
 * come from the run's own tasks, loaded as the run loaded them (its task file, read through its
 * mapping, or its task table; the held-out set too), then from the database's `tasks` table. The
 * run's config (run-config.json in its folder) also names the reward it was scored with.
 */
export interface RunJudgeSource {
  rows: RowSourceInfo;
  /** The run's reward slot (explorer.reward), the default for `--reward`. */
  reward: unknown;
  /** The folder the run's config paths resolve from (a user reward module's too). */
  baseDir: string;
  table: string;
  /** How many tasks with an answer the run's task sources gave. */
  answers: number;
}

async function answersOf(config: RftConfig, baseDir: string, dbDir: string): Promise<Map<string, string>> {
  const sources = [
    { source: config.tasks, path: 'tasks' },
    ...(config.heldout ? [{ source: config.heldout.source, path: 'heldout.source' }] : []),
  ];
  const answers = new Map<string, string>();
  for (const { source, path } of sources) {
    let tasks: Task[];
    try {
      ({ tasks } = await loadTaskSource(source, { baseDir, dbDir, step: path, path }));
    } catch (err) {
      if (!(err instanceof WinnowError)) throw err;
      throw new UsageError(
        `the run's ${path} cannot be read (${err.message.split('\n')[0]}); relative paths resolve from ${baseDir}`,
      );
    }
    for (const t of tasks) if (t.answer !== undefined && !answers.has(t.id)) answers.set(t.id, t.answer);
  }
  return answers;
}

export async function runJudgeSource(
  dbDir: string,
  runId: string,
  table: string | undefined,
): Promise<RunJudgeSource> {
  const run = await findRun(dbDir, runId);
  const places = runPlaces(run);
  const stored = places.runDir ? readStoredRunConfig(places.runDir) : null;
  if (stored === null)
    throw new UsageError(
      `run '${runId}' has no readable run-config.json${places.runDir ? ` in ${places.runDir}` : ''} (judge --run re-scores RFT runs; pass --table and --input for other rows)`,
    );
  // Runs recorded before the config's folder was stored: their relative paths resolve from here.
  const baseDir = stored.baseDir !== undefined && existsSync(stored.baseDir) ? stored.baseDir : process.cwd();
  const answers = await answersOf(stored.config, baseDir, dbDir);
  const tableName = table ?? stored.bufferTable ?? places.bufferTable;
  const rows = await lanceRows(dbDir, tableName);
  const fallback = rows.taskAnswer;
  return {
    rows: { ...rows, taskAnswer: (id) => answers.get(id) ?? fallback?.(id) },
    reward: stored.config.explorer.reward,
    baseDir,
    table: tableName,
    answers: answers.size,
  };
}
