import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../core/task.ts';
import type { ReferenceTaskTables } from '../operators/task/reference-tables.ts';
import { connect } from './connection.ts';
import { TaskStore } from './task-store.ts';

/** Task tables read straight from a LanceDB folder, for decontaminate's `{ table }` references. */
export class LanceReferenceTables implements ReferenceTaskTables {
  has(dbDir: string, table: string): boolean {
    // A synchronous look at the folder, so a missing table fails the build before any table is opened.
    return existsSync(join(dbDir, `${table}.lance`));
  }

  async read(dbDir: string, table: string, taskset?: string): Promise<Task[]> {
    const conn = await connect(dbDir);
    if (!(await conn.tableNames()).includes(table)) return [];
    const store = await TaskStore.open(dbDir, table);
    return store.read(taskset ? { taskset } : {});
  }
}
