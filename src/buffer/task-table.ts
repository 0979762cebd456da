import * as arrow from 'apache-arrow';
import { fastHash64 } from '../core/ids.ts';
import { type Task, TaskSchema } from '../core/task.ts';
import { type ColumnSpec, decodeRows, schemaOf } from './arrow-codec.ts';

/** A task as stored: the Task plus bookkeeping (which run wrote it, a hash of its content). */
export interface StoredTask {
  task: Task;
  runId: string;
  contentHash: string;
  updatedAt: number;
}

const utf8 = new arrow.Utf8();
const json = (v: unknown) => JSON.stringify(v ?? null);

/**
 * Columns of the `tasks` table. Free-form parts (messages, features, meta) are JSON strings:
 * LanceDB needs one fixed schema per table, and task sets differ in their feature names.
 */
export const TASK_COLUMNS: ColumnSpec<StoredTask>[] = [
  { name: 'id', type: utf8, get: (r) => r.task.id },
  { name: 'taskset', type: utf8, get: (r) => r.task.taskset },
  { name: 'prompt', type: utf8, nullable: true, get: (r) => r.task.prompt ?? null },
  {
    name: 'messages',
    type: utf8,
    nullable: true,
    get: (r) => (r.task.messages ? json(r.task.messages) : null),
  },
  { name: 'answer', type: utf8, nullable: true, get: (r) => r.task.answer ?? null },
  { name: 'features', type: utf8, get: (r) => json(r.task.features) },
  { name: 'meta', type: utf8, get: (r) => json(r.task.meta) },
  { name: 'source_file', type: utf8, get: (r) => r.task.source?.file ?? '' },
  { name: 'source_row', type: new arrow.Int32(), get: (r) => r.task.source?.row ?? -1 },
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'content_hash', type: utf8, get: (r) => r.contentHash },
  { name: 'updated_at', type: new arrow.Float64(), get: (r) => r.updatedAt },
];

export const TASK_SCHEMA = schemaOf(TASK_COLUMNS);

/**
 * Hash of everything a task says (not its bookkeeping): equal hashes mean a re-run changed nothing.
 * Plain JSON (not key-sorted) is enough: a pipeline builds features/meta in a fixed order, and a
 * spurious difference only costs an update, never a duplicate.
 */
export function taskContentHash(task: Task): string {
  return fastHash64(
    JSON.stringify([
      task.taskset,
      task.prompt ?? null,
      task.messages ?? null,
      task.answer ?? null,
      task.features,
      task.meta,
    ]),
  );
}

export function decodeTasks(table: arrow.Table): Task[] {
  return decodeRows(table, (c, i) => {
    const row: Record<string, unknown> = {
      id: c.id![i],
      taskset: c.taskset![i],
      features: JSON.parse(String(c.features?.[i] ?? '{}')),
      meta: JSON.parse(String(c.meta?.[i] ?? '{}')),
    };
    if (c.prompt?.[i] != null) row.prompt = c.prompt[i];
    if (c.messages?.[i] != null) row.messages = JSON.parse(String(c.messages[i]));
    if (c.answer?.[i] != null) row.answer = c.answer[i];
    const file = c.source_file?.[i];
    if (typeof file === 'string' && file !== '') row.source = { file, row: Number(c.source_row?.[i] ?? 0) };
    return TaskSchema.parse(row);
  });
}
