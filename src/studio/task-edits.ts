import type { Table } from '@lancedb/lancedb';
import { z } from 'zod';
import { JsonObjectSchema, type Task, TaskSchema } from '../core/task.ts';
import { HttpError } from '../serve/http-error.ts';
import { encodeRows } from '../store/arrow-codec.ts';
import { RejectedStore } from '../store/rejected-store.ts';
import { sqlString } from '../store/sql.ts';
import { decodeTaskRows, storedTask, TASK_COLUMNS } from '../store/task-table.ts';
import { fitColumns } from '../store/typed-columns.ts';
import { EditLog, type EditRecord } from './edit-log.ts';
import {
  checkWritable,
  openStudioTable,
  type StudioContext,
  staleEdit,
  studioConnection,
} from './studio-context.ts';
import { serialized } from './write-queue.ts';

/**
 * Human edits of a task table. Each one is a new Lance version of the table (the next `winnow run`
 * reads it as is) plus a row in `studio_edits`. The client sends the etag (content hash) of the
 * row it edited; the write is conditional on it (merge-insert `WHERE target.content_hash = etag`),
 * so a second editor working from an older copy gets a 409 and nothing is written — never a lost
 * update, also across processes.
 */

export const TaskChangesSchema = z.strictObject({
  prompt: z.string().min(1).optional(),
  answer: z.string().nullable().optional(),
  features: z.record(z.string(), z.number()).optional(),
  meta: JsonObjectSchema.optional(),
});
export type TaskChanges = z.infer<typeof TaskChangesSchema>;

/** A task row as read back: the task, its bookkeeping and the etag an edit must send. */
export interface TaskRow {
  task: Task;
  runId: string;
  etag: string;
  updatedAt: number;
}

const TASK_COLUMN_NAMES = ['id', 'features', 'meta', 'content_hash'];

export async function requireTaskTable(table: Table): Promise<void> {
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  const missing = TASK_COLUMN_NAMES.filter((n) => !names.has(n));
  if (missing.length > 0)
    throw new HttpError({
      status: 400,
      code: 'not_a_task_table',
      field: 'table',
      message: `table '${table.name}' is not a task table (no ${missing.join(', ')} column)`,
      hint: 'tasks are edited in tables a task pipeline wrote (e.g. tasks)',
    });
}

export async function readTaskRow(table: Table, id: string): Promise<TaskRow | null> {
  const data = await table
    .query()
    .where(`id = ${sqlString(id)}`)
    .limit(1)
    .toArrow();
  if (data.numRows === 0) return null;
  const { tasks, bad } = decodeTaskRows(data, table.name);
  const task = tasks[0];
  if (!task)
    throw new HttpError({
      status: 422,
      code: 'bad_row',
      field: bad[0]?.column ?? 'row',
      message: `task '${id}' cannot be read: ${bad[0]?.reason ?? 'malformed row'}`,
    });
  const cell = (name: string) => data.getChild(name)?.get(0) as unknown;
  return {
    task,
    runId: String(cell('run_id') ?? ''),
    etag: String(cell('content_hash') ?? ''),
    updatedAt: Number(cell('updated_at') ?? 0),
  };
}

export async function requireTaskRow(table: Table, id: string): Promise<TaskRow> {
  const row = await readTaskRow(table, id);
  if (!row)
    throw new HttpError({
      status: 404,
      code: 'unknown_row',
      field: 'id',
      message: `no task '${id}' in table '${table.name}'`,
    });
  return row;
}

/**
 * One task row encoded for `table`, as TaskStore encodes its writes: the columns fitted to the
 * table's own layout, so a table written before the typed layout stays editable.
 */
async function encodeTaskRow(table: Table, task: Task, runId: string) {
  return encodeRows([storedTask(task, runId, Date.now())], fitColumns(TASK_COLUMNS, await table.schema()));
}

/** Write `task` over the row whose content hash is `etag`; false when that row is no longer there. */
async function conditionalWrite(table: Table, task: Task, runId: string, etag: string): Promise<boolean> {
  const result = await table
    .mergeInsert('id')
    .whenMatchedUpdateAll({ where: `target.content_hash = ${sqlString(etag)}` })
    .execute(await encodeTaskRow(table, task, runId));
  return result.numUpdatedRows === 1;
}

function applyChanges(task: Task, changes: TaskChanges): Task {
  const next: Record<string, unknown> = { ...task };
  if (changes.prompt !== undefined) next.prompt = changes.prompt;
  if (changes.answer !== undefined) {
    if (changes.answer === null) delete next.answer;
    else next.answer = changes.answer;
  }
  if (changes.features !== undefined) next.features = changes.features;
  if (changes.meta !== undefined) next.meta = changes.meta;
  const parsed = TaskSchema.safeParse(next);
  if (!parsed.success)
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      field: `changes.${String(parsed.error.issues[0]?.path[0] ?? '')}`,
      message: parsed.error.issues[0]?.message ?? 'not a valid task',
    });
  return parsed.data;
}

export interface EditOutcome {
  edit: EditRecord;
  version: number;
  etag: string | null;
}

async function commitTaskChange(
  ctx: StudioContext,
  table: Table,
  row: TaskRow,
  next: Task,
  kind: 'edit' | 'accept',
  reason: string,
): Promise<EditOutcome> {
  const versionBefore = await table.version();
  if (!(await conditionalWrite(table, next, row.runId, row.etag))) {
    const now = await readTaskRow(table, row.task.id);
    throw staleEdit(`task '${row.task.id}'`, row.etag, now?.etag ?? 'deleted');
  }
  const version = await table.version();
  const edit = await EditLog.of(await studioConnection(ctx)).append({
    table: table.name,
    rowId: row.task.id,
    kind,
    user: ctx.user,
    before: JSON.stringify({ task: row.task, runId: row.runId }),
    after: JSON.stringify({ task: next, runId: row.runId }),
    reason,
    versionBefore,
    versionAfter: version,
    undoOf: '',
  });
  return { edit, version, etag: storedTask(next, row.runId, 0).contentHash };
}

async function freshRow(table: Table, id: string, etag: string): Promise<TaskRow> {
  const row = await requireTaskRow(table, id);
  if (row.etag !== etag) throw staleEdit(`task '${id}'`, etag, row.etag);
  return row;
}

export function editTask(
  ctx: StudioContext,
  o: { table: string; id: string; etag: string; changes: TaskChanges; reason: string },
): Promise<EditOutcome> {
  checkWritable(ctx);
  return serialized(ctx, async () => {
    const table = await openStudioTable(ctx, o.table);
    await requireTaskTable(table);
    const row = await freshRow(table, o.id, o.etag);
    return commitTaskChange(ctx, table, row, applyChanges(row.task, o.changes), 'edit', o.reason);
  });
}

/**
 * Accept marks the task reviewed (`meta.review`), and the task stays in the table. Reject removes
 * it from the table — the next run does not read it — and records it in `rejected` (step
 * `studio`, with the reviewer's reason), so it is never lost: undo puts it back.
 */
export function reviewTask(
  ctx: StudioContext,
  o: { table: string; id: string; etag: string; decision: 'accept' | 'reject'; reason: string },
): Promise<EditOutcome> {
  checkWritable(ctx);
  return serialized(ctx, async () => {
    const table = await openStudioTable(ctx, o.table);
    await requireTaskTable(table);
    const row = await freshRow(table, o.id, o.etag);
    if (o.decision === 'accept') {
      const review = { status: 'accepted', by: ctx.user, at: new Date().toISOString() };
      return commitTaskChange(
        ctx,
        table,
        row,
        { ...row.task, meta: { ...row.task.meta, review } },
        'accept',
        o.reason,
      );
    }
    const versionBefore = await table.version();
    await table.delete(`id = ${sqlString(o.id)} AND content_hash = ${sqlString(row.etag)}`);
    const version = await table.version();
    if ((await readTaskRow(table, o.id)) !== null) throw staleEdit(`task '${o.id}'`, o.etag, 'changed');
    const rejected = await RejectedStore.open(ctx.dbDir);
    rejected.add([
      {
        step: 'studio',
        reason: `rejected by ${ctx.user}${o.reason ? `: ${o.reason}` : ''}`,
        file: row.task.source?.file ?? '',
        row: row.task.source?.row ?? -1,
        rowId: o.id,
        payload: JSON.stringify(row.task),
        runId: 'studio',
      },
    ]);
    await rejected.flush();
    const edit = await EditLog.of(await studioConnection(ctx)).append({
      table: table.name,
      rowId: o.id,
      kind: 'reject',
      user: ctx.user,
      before: JSON.stringify({ task: row.task, runId: row.runId }),
      after: 'null',
      reason: o.reason,
      versionBefore,
      versionAfter: version,
      undoOf: '',
    });
    return { edit, version, etag: null };
  });
}

const SnapshotSchema = z.object({ task: TaskSchema, runId: z.string() }).nullable();

/**
 * Undo a task edit: a new version restoring the values before it (the old versions stay). Refused
 * (409) when the task changed again since — undo the later edit first — or was undone already.
 */
export async function undoTaskEdit(ctx: StudioContext, edit: EditRecord): Promise<EditOutcome> {
  const table = await openStudioTable(ctx, edit.table);
  const before = SnapshotSchema.parse(JSON.parse(edit.before));
  const after = SnapshotSchema.parse(JSON.parse(edit.after));
  const current = await readTaskRow(table, edit.rowId);
  const versionBefore = await table.version();
  const expected = after ? storedTask(after.task, after.runId, 0).contentHash : null;
  if ((current?.etag ?? null) !== expected)
    throw new HttpError({
      status: 409,
      code: 'stale_edit',
      field: 'editId',
      message: `task '${edit.rowId}' changed after this edit; undo the later edits first`,
      hint: 'GET /api/edits lists them, newest last',
    });
  if (before === null) {
    await table.delete(`id = ${sqlString(edit.rowId)}`);
  } else if (current === null) {
    await table.add(await encodeTaskRow(table, before.task, before.runId));
    if (edit.kind === 'reject') {
      const rejected = await RejectedStore.open(ctx.dbDir);
      await rejected.table.delete(`step = 'studio' AND row_id = ${sqlString(edit.rowId)}`);
    }
  } else if (!(await conditionalWrite(table, before.task, before.runId, current.etag))) {
    throw staleEdit(`task '${edit.rowId}'`, current.etag, 'changed');
  }
  const version = await table.version();
  const undo = await EditLog.of(await studioConnection(ctx)).append({
    table: table.name,
    rowId: edit.rowId,
    kind: 'undo',
    user: ctx.user,
    before: edit.after,
    after: edit.before,
    reason: `undo ${edit.kind} ${edit.editId}`,
    versionBefore,
    versionAfter: version,
    undoOf: edit.editId,
  });
  return { edit: undo, version, etag: before ? storedTask(before.task, before.runId, 0).contentHash : null };
}
