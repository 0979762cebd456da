import * as arrow from 'apache-arrow';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import { fastHash64 } from '../core/ids.ts';
import { JsonObjectSchema, MessageSchema, type Task, TaskSchema } from '../core/task.ts';
import { type ColumnSpec, decodeRows, schemaOf } from './arrow-codec.ts';
import { type BadCell, badRows, describeBadRow, parseJsonCell } from './bad-cell.ts';
import { JSON_EXTENSION, MESSAGES_TYPE, NUMBER_MAP_TYPE, TIMESTAMP_MS } from './typed-columns.ts';

/** A task as stored: the Task plus bookkeeping (which run wrote it, a hash of its content). */
export interface StoredTask {
  task: Task;
  runId: string;
  contentHash: string;
  updatedAt: number;
  /** The JSON cells, when already built (`storedTask` builds each once, for the hash and the column). */
  json?: { messages: string | null; features: string; meta: string };
}

const utf8 = new arrow.Utf8();
const json = (v: unknown) => JSON.stringify(v ?? null);

/**
 * Columns of the `tasks` table. Chat turns are `list<struct<role, content>>`, features a
 * `map<string, double>` (task sets differ in their feature names, and LanceDB keeps one schema per
 * table), `meta` JSON (Arrow's JSON extension type; Lance stores it as binary JSON) and
 * `updated_at` a UTC timestamp. Tables written before this layout keep theirs (`fitColumns`).
 */
export const TASK_COLUMNS: ColumnSpec<StoredTask>[] = [
  { name: 'id', type: utf8, get: (r) => r.task.id },
  { name: 'taskset', type: utf8, get: (r) => r.task.taskset },
  { name: 'prompt', type: utf8, nullable: true, get: (r) => r.task.prompt ?? null },
  { name: 'messages', type: MESSAGES_TYPE, nullable: true, get: (r) => r.task.messages ?? null },
  { name: 'answer', type: utf8, nullable: true, get: (r) => r.task.answer ?? null },
  { name: 'features', type: NUMBER_MAP_TYPE, get: (r) => r.task.features },
  {
    name: 'meta',
    type: utf8,
    metadata: JSON_EXTENSION,
    get: (r) => r.json?.meta ?? json(r.task.meta),
  },
  { name: 'source_file', type: utf8, get: (r) => r.task.source?.file ?? '' },
  { name: 'source_row', type: new arrow.Int32(), get: (r) => r.task.source?.row ?? -1 },
  { name: 'run_id', type: utf8, get: (r) => r.runId },
  { name: 'content_hash', type: utf8, get: (r) => r.contentHash },
  { name: 'updated_at', type: TIMESTAMP_MS, nullable: true, get: (r) => r.updatedAt },
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

/**
 * A task ready to encode: its JSON cells built once and its content hash computed from the same
 * strings (equal to `taskContentHash`: `JSON.stringify([a, b])` is `[` + each element's JSON + `]`).
 */
export function storedTask(task: Task, runId: string, updatedAt: number): StoredTask {
  const cells = {
    messages: task.messages ? json(task.messages) : null,
    features: json(task.features),
    meta: json(task.meta),
  };
  const text = `[${JSON.stringify(task.taskset)},${json(task.prompt)},${task.messages === undefined ? 'null' : (cells.messages ?? json(task.messages))},${json(task.answer)},${cells.features},${cells.meta}]`;
  return { task, runId, contentHash: fastHash64(text), updatedAt, json: cells };
}

/** Tasks decoded from stored rows: the good ones, and the cells that kept the others out. */
export interface DecodedTasks {
  tasks: Task[];
  bad: BadCell[];
}

const FeaturesSchema = z.record(z.string(), z.number());
const MessagesSchema = z.array(MessageSchema);

/** Why a zod check failed, in a few words naming the key (`feature 'difficulty': expected number`). */
function zodReason(error: z.ZodError, what: string): string {
  const issue = error.issues[0];
  if (!issue) return `not a valid ${what}`;
  const key = issue.path.length > 0 ? `${what} '${issue.path.join('.')}': ` : '';
  return `${key}${issue.message}`;
}

/**
 * Decode stored task rows defensively: rows may come from other tools, so each JSON cell is parsed
 * and checked on its own, and a bad cell names its column instead of failing the whole read.
 */
export function decodeTaskRows(table: arrow.Table, tableName = 'tasks'): DecodedTasks {
  const tasks: Task[] = [];
  const bad: BadCell[] = [];
  decodeRows(table, (c, i) => {
    const id = c.id?.[i] == null ? '' : String(c.id[i]);
    const cells: BadCell[] = [];
    const fail = (column: string, reason: string) => cells.push({ table: tableName, id, column, reason });
    const jsonCell = <T>(column: string, fallback: string, schema: z.ZodType<T>, what: string) => {
      // Typed columns arrive as values; JSON columns and older tables' text cells as JSON text.
      const raw = c[column]?.[i];
      const parsed =
        typeof raw === 'string' || raw == null
          ? parseJsonCell(raw ?? fallback)
          : { ok: true as const, value: raw };
      if (!parsed.ok) return fail(column, parsed.reason);
      const checked = schema.safeParse(parsed.value);
      if (!checked.success) return fail(column, zodReason(checked.error, what));
      return checked.data;
    };
    const row: Record<string, unknown> = { id, taskset: c.taskset?.[i] ?? '' };
    if (id === '') fail('id', 'missing');
    if (row.taskset === '') fail('taskset', 'missing');
    row.features = jsonCell('features', '{}', FeaturesSchema, 'feature');
    row.meta = jsonCell('meta', '{}', JsonObjectSchema, 'meta key');
    if (c.prompt?.[i] != null) row.prompt = String(c.prompt[i]);
    if (c.messages?.[i] != null) row.messages = jsonCell('messages', '[]', MessagesSchema, 'message');
    if (c.answer?.[i] != null) row.answer = String(c.answer[i]);
    const file = c.source_file?.[i];
    if (typeof file === 'string' && file !== '') row.source = { file, row: Number(c.source_row?.[i] ?? 0) };
    if (cells.length === 0) {
      const task = TaskSchema.safeParse(row);
      if (task.success) tasks.push(task.data);
      else {
        // The issue's first path element is the column; the rest (if any) says where inside it.
        const issue = task.error.issues[0];
        const inner = issue?.path.slice(1) ?? [];
        const where = inner.length > 0 ? `'${inner.join('.')}': ` : '';
        fail(String(issue?.path[0] ?? 'row'), `${where}${issue?.message ?? 'not a valid task'}`);
      }
    }
    bad.push(...cells);
  });
  return { tasks, bad };
}

/** Decode stored task rows, refusing (one line naming table, row and column) if any cell is bad. */
export function decodeTasks(table: arrow.Table, tableName = 'tasks'): Task[] {
  const { tasks, bad } = decodeTaskRows(table, tableName);
  const rows = badRows(bad);
  if (rows.length > 0)
    throw new DataError({
      message: `${describeBadRow(rows[0]!)}${rows.length > 1 ? ` (and ${rows.length - 1} more rows)` : ''}`,
    });
  return tasks;
}
