import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import type { Task } from '../core/task.ts';
import { type ColumnSpec, encodeRows } from './arrow-codec.ts';
import { connect, openOrCreateTable } from './connection.ts';
import { appendTable } from './lance-append.ts';
import { sqlString } from './sql.ts';
import { encodeTasks, isTypedTaskLayout, TaskRowsEncoder } from './task-encoder.ts';
import {
  type DecodedTasks,
  decodeTaskRows,
  decodeTasks,
  type StoredTask,
  storedTask,
  TASK_COLUMNS,
  TASK_SCHEMA,
} from './task-table.ts';
import { fitColumns } from './typed-columns.ts';

export interface TaskReadOptions {
  taskset?: string;
  version?: number | string;
  limit?: number;
}

export interface TaskWriteResult {
  inserted: number;
  updated: number;
  unchanged: number;
  version: number;
}

/**
 * The `tasks` table. Writes are upserts on `id`, so re-running a pipeline on the same input adds
 * nothing; a task whose content changed is updated in place. Each pipeline run is tagged
 * (`run-<id>`) so a task set can be checked out as it was after that run.
 */
export class TaskStore {
  readonly table: Table;
  /** The columns as this table stores them (typed, or an older table's text layout). */
  private readonly columns: ColumnSpec<StoredTask>[];
  private constructor(table: Table, columns: ColumnSpec<StoredTask>[]) {
    this.table = table;
    this.columns = columns;
  }

  static async open(dbDir?: string, tableName = 'tasks'): Promise<TaskStore> {
    const conn = await connect(dbDir);
    const table = await openOrCreateTable(conn, tableName, TASK_SCHEMA);
    return new TaskStore(table, fitColumns(TASK_COLUMNS, await table.schema()));
  }

  /**
   * Upsert one commit's worth of tasks (callers batch: one call = one Lance version). Ids must be
   * unique within the call. `append: true` skips the id lookup — only for a caller that knows none
   * of the ids can exist (a run that started on an empty table and rejects repeated ids itself).
   */
  async write(
    tasks: readonly Task[],
    runId: string,
    opts: { append?: boolean } = {},
  ): Promise<TaskWriteResult> {
    if (tasks.length === 0)
      return { inserted: 0, updated: 0, unchanged: 0, version: await this.table.version() };
    const now = Date.now();
    const data = isTypedTaskLayout(this.columns)
      ? encodeTasks(tasks, runId, now)
      : encodeRows(
          tasks.map((task) => storedTask(task, runId, now)),
          this.columns,
        );
    return this.writeData(data, tasks.length, opts);
  }

  /**
   * An encoder for `writeEncoded` when this table has the typed layout (tasks encoded as they
   * come, one commit later); null for a table an older Winnow made (its columns are fitted per row).
   */
  encoder(runId: string, rows: number): TaskRowsEncoder | null {
    return isTypedTaskLayout(this.columns) ? new TaskRowsEncoder(runId, rows) : null;
  }

  /** `write` of the tasks pushed to `encoder` (from `this.encoder`), updated now. */
  async writeEncoded(encoder: TaskRowsEncoder, opts: { append?: boolean } = {}): Promise<TaskWriteResult> {
    if (encoder.length === 0)
      return { inserted: 0, updated: 0, unchanged: 0, version: await this.table.version() };
    return this.writeData(encoder.finish(Date.now()), encoder.length, opts);
  }

  /**
   * `write` of rows already encoded in this table's typed layout (`TaskRowsEncoder.finish`: a queued
   * run's pipeline workers encode them), `rows` of them. One call = one Lance version.
   */
  async writeRows(data: arrow.Table, opts: { append?: boolean } = {}): Promise<TaskWriteResult> {
    if (data.numRows === 0)
      return { inserted: 0, updated: 0, unchanged: 0, version: await this.table.version() };
    return this.writeData(data, data.numRows, opts);
  }

  private async writeData(
    data: arrow.Table,
    rows: number,
    opts: { append?: boolean },
  ): Promise<TaskWriteResult> {
    if (opts.append || (await this.table.countRows()) === 0) {
      const version = await appendTable(this.table, data, isTypedTaskLayout(this.columns));
      return { inserted: rows, updated: 0, unchanged: 0, version };
    }
    const result = await this.table
      .mergeInsert('id')
      .whenMatchedUpdateAll({ where: 'target.content_hash != source.content_hash' })
      .whenNotMatchedInsertAll()
      .execute(data);
    return {
      inserted: result.numInsertedRows,
      updated: result.numUpdatedRows,
      unchanged: rows - result.numInsertedRows - result.numUpdatedRows,
      version: result.version,
    };
  }

  async count(taskset?: string): Promise<number> {
    return this.table.countRows(taskset ? `taskset = ${sqlString(taskset)}` : undefined);
  }

  /** Read tasks, optionally of one task set and as of a version number or run tag. */
  async read(opts: TaskReadOptions = {}): Promise<Task[]> {
    return decodeTasks(await this.readRaw(opts), this.table.name);
  }

  /** Like `read`, but rows with malformed cells (written by other tools) come back as bad cells. */
  async readChecked(opts: TaskReadOptions = {}): Promise<DecodedTasks> {
    return decodeTaskRows(await this.readRaw(opts), this.table.name);
  }

  private async readRaw(opts: TaskReadOptions): Promise<arrow.Table> {
    if (opts.version !== undefined) await this.table.checkout(opts.version);
    try {
      let q = this.table.query();
      if (opts.taskset) q = q.where(`taskset = ${sqlString(opts.taskset)}`);
      if (opts.limit !== undefined) q = q.limit(opts.limit);
      return await q.toArrow();
    } finally {
      if (opts.version !== undefined) await this.table.checkoutLatest();
    }
  }

  async version(): Promise<number> {
    return this.table.version();
  }

  /** Tag the current version as the result of a run; returns the version tagged. */
  async tagRun(runId: string): Promise<number> {
    const version = await this.table.version();
    const tags = await this.table.tags();
    await tags.create(runTag(runId), version);
    return version;
  }

  /**
   * Merge small fragments and drop superseded versions' files older than `olderThanMs` (tags are
   * kept). `keepVersion` and later versions are kept whatever their age: a run compacting before it
   * has finished may still need to roll back to the version it started from.
   */
  async compact(olderThanMs = 7 * 24 * 3600 * 1000, keepVersion?: number): Promise<void> {
    let cutoff = Date.now() - olderThanMs;
    if (keepVersion !== undefined) {
      const kept = (await this.table.listVersions()).find((v) => v.version === keepVersion);
      if (kept) cutoff = Math.min(cutoff, kept.timestamp.getTime());
    }
    await this.table.optimize({ cleanupOlderThan: new Date(cutoff) });
  }

  /** Put the table back as it was at `version` (a new version with that content); no-op when unchanged. */
  async restoreTo(version: number): Promise<void> {
    if ((await this.table.version()) === version) return;
    await this.table.checkout(version);
    await this.table.restore();
  }

  /** Remove a run's tag, where it has one (a run rolled back after tagging). */
  async untagRun(runId: string): Promise<void> {
    const tags = await this.table.tags();
    if (runTag(runId) in (await tags.list())) await tags.delete(runTag(runId));
  }
}

export function runTag(runId: string): string {
  return `run-${runId}`;
}
