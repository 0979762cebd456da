import { resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import type { Task } from '../../core/task.ts';
import { loadTaskSource } from '../pipeline/task-source.ts';
import { benchCheckpointsIn, NOTHING_TO_BENCH } from './drivers/bench.ts';
import { loadEvalSetTasks } from './evaluation/eval-sets.ts';
import type { RftBuildContext } from './rft-build-context.ts';
import type { RftConfig } from './rft-config.ts';

export interface RunTasks {
  tasks: Task[];
  heldout: Task[];
  /** The tasks of each `evaluation.sets` entry, in order. */
  evalTasks: Task[][];
  /** Rows the task sources could not use; recorded in `rejected` once the run starts. */
  rejected: RejectedInput[];
}

/** Read a run's task sources (training, held-out, evaluation sets) and check a run has what it needs. */
export async function loadRunTasks(config: RftConfig, c: RftBuildContext): Promise<RunTasks> {
  const where = c.file ? { file: c.file } : {};
  const load = (source: Parameters<typeof loadTaskSource>[0], path: string, step: string) =>
    loadTaskSource(source, { ...c.at(path), dbDir: c.dbDir, step });
  const loaded = await load(config.tasks, 'tasks', 'tasks');
  const rejected = loaded.rejected.map((r) => ({ runId: c.runId, ...r }));
  const mode = config.lifecycle.mode;
  if (loaded.tasks.length === 0 && mode !== 'train' && mode !== 'bench')
    throw new ConfigError({
      path: 'tasks',
      ...where,
      message: `the task source holds no usable tasks (${loaded.rejected.length} row(s) rejected)`,
      hint: 'check the mapping against the file’s columns: winnow inspect shows what was rejected',
    });
  let heldout: Task[] = [];
  if (config.heldout) {
    const h = await load(config.heldout.source, 'heldout.source', 'heldout');
    heldout = config.heldout.size !== undefined ? h.tasks.slice(0, config.heldout.size) : h.tasks;
  }
  const evalConfigs = config.evaluation?.sets ?? [];
  const evalLoaded = await loadEvalSetTasks(evalConfigs, (source, a) => load(source, a.path, a.step), c.file);
  rejected.push(...evalLoaded.rejected.map((r) => ({ runId: c.runId, ...r })));
  if (mode === 'bench' && heldout.length === 0 && evalConfigs.length === 0)
    throw new ConfigError({ ...NOTHING_TO_BENCH, ...where });
  if (mode === 'bench' && config.lifecycle.benchCheckpoints !== undefined) {
    // Checked now (a bad folder fails before anything is written); the driver reads the resolved path.
    benchCheckpointsIn(resolve(c.baseDir, config.lifecycle.benchCheckpoints), { canLoadWeights: true });
  }
  return { tasks: loaded.tasks, heldout, evalTasks: evalLoaded.tasks, rejected };
}
