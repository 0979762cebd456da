import type { Task } from '../../core/task.ts';

/**
 * Task tables in a LanceDB database, as the decontaminate operator reads them for a reference
 * set. Operators do not import the buffer; the task pipeline lends the LanceDB implementation
 * (src/store/reference-tables.ts).
 */
export interface ReferenceTaskTables {
  /** Whether database folder `dbDir` holds a table `table` (checked when the graph is built, before anything is written). */
  has(dbDir: string, table: string): boolean;
  /** Every task of the table (of one task set when given). */
  read(dbDir: string, table: string, taskset?: string): Promise<Task[]>;
}
