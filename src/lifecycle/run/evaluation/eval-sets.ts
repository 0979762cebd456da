import { ConfigError } from '../../../core/errors.ts';
import type { RejectedInput } from '../../../core/rejected.ts';
import type { Task } from '../../../core/task.ts';
import type { Explorer } from '../../../explorer/explorer.ts';
import type { TaskSource } from '../rft-config.ts';
import type { TaskRewards } from './pass-at-k.ts';

/** One configured evaluation set (the parsed `evaluation.sets[i]`). */
export interface EvalSetConfig {
  name: string;
  source: TaskSource;
  size?: number | undefined;
  k: number;
  /** Samples per task (n ≥ k; default k). */
  n?: number | undefined;
  temperature?: number | undefined;
  correctAt: number;
}

/** An evaluation set ready to run: its tasks and how to sample them n times each. */
export interface EvalSet {
  name: string;
  k: number;
  /** Samples per task (n ≥ k). */
  n: number;
  correctAt: number;
  tasks: Task[];
  /** The n rewards of every task, in task order (a failed group counts as n rewards of 0). */
  sample(): Promise<TaskRewards[]>;
}

/** Reads a task source (the run's own loader, so paths and tables resolve as for `tasks`). */
export type LoadSource = (
  source: TaskSource,
  at: { path: string; step: string },
) => Promise<{ tasks: Task[]; rejected: RejectedInput[] }>;

/**
 * Load every evaluation set's tasks before anything runs. A set that yields no usable task fails
 * the start with its config path named; rows its source could not use are handed back for the
 * `rejected` table (step `evaluation:<name>:…`), so nothing is dropped unseen.
 */
export async function loadEvalSetTasks(
  sets: readonly EvalSetConfig[],
  load: LoadSource,
  file?: string,
): Promise<{ tasks: Task[][]; rejected: RejectedInput[] }> {
  const tasks: Task[][] = [];
  const rejected: RejectedInput[] = [];
  for (let i = 0; i < sets.length; i++) {
    const s = sets[i]!;
    const path = `evaluation.sets[${i}].source`;
    const loaded = await load(s.source, { path, step: `evaluation:${s.name}` });
    rejected.push(...loaded.rejected);
    const list = s.size !== undefined ? loaded.tasks.slice(0, s.size) : loaded.tasks;
    if (list.length === 0)
      throw new ConfigError({
        path,
        ...(file ? { file } : {}),
        message: `evaluation set '${s.name}' holds no usable tasks (${loaded.rejected.length} row(s) rejected)`,
        hint: 'check the source and its mapping: winnow inspect shows what was rejected',
      });
    tasks.push(list);
  }
  return { tasks, rejected };
}

/**
 * An evaluation set sampled by `explorer` (built with repeat = n, the set's temperature and a seed
 * of its own). Every evaluation rolls out as explore step 0, so each task's n samples take the same
 * seeds every time: the curve over steps shows the model changing, not the sampling noise, and a
 * resumed run measures exactly what an uninterrupted one does. `before` routes a served model to
 * the newest weights first (weight sync).
 */
export function evalSet(
  config: EvalSetConfig,
  tasks: Task[],
  explorer: Explorer,
  before?: () => Promise<void>,
): EvalSet {
  const n = config.n ?? config.k;
  return {
    name: config.name,
    k: config.k,
    n,
    correctAt: config.correctAt,
    tasks,
    async sample() {
      await before?.();
      const r = await explorer.explore(tasks, 0, 0);
      const byTask = new Map<string, number[]>();
      for (const e of r.experiences) {
        const list = byTask.get(e.taskId) ?? new Array<number>(n).fill(0);
        if (e.runIndex >= 0 && e.runIndex < n) list[e.runIndex] = Number.isFinite(e.reward) ? e.reward : 0;
        byTask.set(e.taskId, list);
      }
      return tasks.map((t) => byTask.get(t.id) ?? new Array<number>(n).fill(0));
    },
  };
}
