import type { Task } from '../../core/task.ts';
import { Explorer } from '../../explorer/explorer.ts';
import { collectTaskRewards } from '../../operators/experience/pass-rate.ts';
import { TaskStore } from '../../store/task-store.ts';

export interface AnnotateOptions {
  explorer: Explorer;
  tasks: readonly Task[];
  /** Feature name the pass rate is written to (e.g. `pass_rate_weak`). */
  feature: string;
  repeat: number;
  batchTasks: number;
  dbDir: string;
  table: string;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Measure the rollout model's pass rate on every task (`repeat` samples each) and write it back to
 * the task table as `features.<feature>` — the reference columns BOTS reads. Tasks whose whole group
 * failed get no value (NaN would poison the posterior) and are counted.
 */
export async function annotatePassRates(
  o: AnnotateOptions,
): Promise<{ annotated: number; failed: number; meanPassRate: number }> {
  const explorer = new Explorer({ ...o.explorer.options, repeat: o.repeat });
  const store = await TaskStore.open(o.dbDir, o.table);
  let annotated = 0;
  let failed = 0;
  let sum = 0;
  const pending: Task[] = [];
  for (let i = 0; i < o.tasks.length; i += o.batchTasks) {
    const chunk = o.tasks.slice(i, i + o.batchTasks);
    const r = await explorer.explore(chunk, i / o.batchTasks, 0);
    const rates = new Map(
      collectTaskRewards(r.experiences).map((g) => {
        const ok = g.rewards.filter((x) => Number.isFinite(x));
        return [g.taskId, ok.length === 0 ? Number.NaN : ok.reduce((a, b) => a + b, 0) / ok.length] as const;
      }),
    );
    for (const t of chunk) {
      const rate = rates.get(t.id);
      if (rate === undefined || !Number.isFinite(rate)) {
        failed++;
        continue;
      }
      pending.push({ ...t, features: { ...t.features, [o.feature]: rate } });
      annotated++;
      sum += rate;
    }
    if (pending.length >= 50_000) await store.write(pending.splice(0), 'annotate');
    o.onProgress?.(Math.min(o.tasks.length, i + o.batchTasks), o.tasks.length);
  }
  await store.write(pending, 'annotate');
  return { annotated, failed, meanPassRate: annotated > 0 ? sum / annotated : Number.NaN };
}
