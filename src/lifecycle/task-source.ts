import { resolve } from 'node:path';
import { TaskStore } from '../buffer/task-store.ts';
import type { RejectedInput } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import { compileMapping, mapRecord } from '../io/mapping.ts';
import { readDataset } from '../io/reader.ts';
import { compilePredicate } from '../operators/predicate.ts';
import type { TaskSource } from './rft-config.ts';

/**
 * Load the tasks of a run: from a dataset file (read and mapped like a task pipeline's input, bad
 * rows reported for the `rejected` table) or from a task table, optionally as of a version or tag.
 */
export async function loadTaskSource(
  source: TaskSource,
  opts: { baseDir: string; dbDir: string; step: string },
): Promise<{ tasks: Task[]; rejected: RejectedInput[] }> {
  const rejected: RejectedInput[] = [];
  const keep = source.filter ? compilePredicate(source.filter) : () => true;
  if ('path' in source) {
    const file = resolve(opts.baseDir, source.path);
    const mapping = compileMapping(source.mapping);
    const tasks: Task[] = [];
    for await (const batch of readDataset(file)) {
      for (const r of batch.rejected)
        rejected.push({
          step: `${opts.step}:${r.step}`,
          reason: r.reason,
          file: r.file,
          row: r.row,
          payload: r.payload,
        });
      for (const record of batch.records) {
        const m = mapRecord(record, mapping);
        if ('task' in m) {
          if (keep(m.task)) tasks.push(m.task);
        } else
          rejected.push({
            step: `${opts.step}:map`,
            reason: m.error,
            file: record.source.file,
            row: record.source.row,
            payload: JSON.stringify(record.fields),
          });
        if (source.limit !== undefined && tasks.length >= source.limit) return { tasks, rejected };
      }
    }
    return { tasks, rejected };
  }
  const store = await TaskStore.open(opts.dbDir, source.table);
  const tasks = await store.read({
    ...(source.taskset ? { taskset: source.taskset } : {}),
    ...(source.version !== undefined ? { version: source.version } : {}),
    ...(source.limit !== undefined ? { limit: source.limit } : {}),
  });
  // Table order is not guaranteed across compactions: sort by id so runs are reproducible.
  const kept = tasks.filter(keep);
  kept.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { tasks: kept, rejected };
}
