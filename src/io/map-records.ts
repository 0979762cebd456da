import { type RejectedInput, rejectedPayload } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import type { CompiledMapping } from './mapping.ts';
import type { RawRecord } from './raw-record.ts';

/**
 * Map raw records to tasks; a record the mapping refuses becomes a rejected row (step `map`, its
 * file and row, the reason). One place for the main thread, the worker threads and the queue workers.
 */
/** A record the mapping refused: always with its file, row and payload. */
export type MapRejection = RejectedInput & { file: string; row: number; payload: string };

export function mapRecords(
  mapping: CompiledMapping,
  records: readonly RawRecord[],
): { tasks: Task[]; rejected: MapRejection[] } {
  const tasks: Task[] = [];
  const rejected: MapRejection[] = [];
  for (const record of records) {
    const mapped = mapping.map(record);
    if ('task' in mapped) tasks.push(mapped.task);
    else
      rejected.push({
        step: 'map',
        reason: mapped.error,
        file: record.source.file,
        row: record.source.row,
        payload: rejectedPayload(record.fields),
      });
  }
  return { tasks, rejected };
}
