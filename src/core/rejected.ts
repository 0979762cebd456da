import { z } from 'zod';
import type { Task } from './task.ts';

/**
 * A row that did not make it: which step dropped it, why, and where it came from.
 * Nothing is lost silently — every reader, operator, hook and sampler reports drops in this shape.
 */
export const RejectedSchema = z.object({
  /** The reader, operator, hook or sampler that dropped the row (e.g. `read:jsonl`, `length_filter`). */
  step: z.string(),
  reason: z.string(),
  file: z.string().default(''),
  /** 1-based line for text formats, 0-based row index for columnar ones, -1 when not applicable. */
  row: z.number().int().default(-1),
  /** The row's id when it had one. */
  rowId: z.string().default(''),
  /** The row itself as JSON (truncated for huge rows). */
  payload: z.string().default(''),
  runId: z.string().default(''),
  createdAt: z.number().default(0),
});
export type Rejected = z.infer<typeof RejectedSchema>;
export type RejectedInput = z.input<typeof RejectedSchema>;

/** Keep rejected payloads bounded: a 10 MB line is recorded by its head, not in full. */
export const MAX_REJECTED_PAYLOAD = 4096;

export function truncatePayload(text: string): string {
  if (text.length <= MAX_REJECTED_PAYLOAD) return text;
  return `${text.slice(0, MAX_REJECTED_PAYLOAD)}… [${text.length - MAX_REJECTED_PAYLOAD} more chars]`;
}

/** A rejected row as payload text: strings as they are, anything else as JSON (or its string form). */
export function rejectedPayload(row: unknown): string {
  if (typeof row === 'string') return row;
  try {
    return JSON.stringify(row);
  } catch {
    return String(row);
  }
}

/**
 * The rejected record of a task dropped at `step`: where it was read, its id, and the task as
 * payload. The task pipeline records its dropped tasks so (lifecycle/pipeline/task-pipeline-landing.ts),
 * and a queued run's pipeline worker builds the records of the rows it sets aside the same way
 * (scale/shard-frame-builder.ts), so the coordinator records them without decoding the rows.
 */
export function taskRejection(step: string, task: Task, reason: string): RejectedInput {
  return {
    step,
    reason,
    file: task.source?.file ?? '',
    row: task.source?.row ?? -1,
    rowId: task.id,
    payload: rejectedPayload(task),
  };
}
