import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { DataError } from '../core/errors.ts';
import { type JsonValue, JsonValueSchema } from '../core/task.ts';

/** How many answered request ids (and fed steps) a run remembers: a retry comes within seconds. */
export const REMEMBERED_REQUESTS = 256;
/** How many selections may wait for their feedback at once (older ones are forgotten, oldest first). */
export const MAX_PENDING = 64;

const PendingSelectionSchema = z.object({
  step: z.number().int().positive(),
  taskIds: z.array(z.string()),
  requestId: z.string().optional(),
});
export type PendingSelection = z.output<typeof PendingSelectionSchema>;

const AnsweredSchema = z.object({
  /** `select:<requestId>`, `feedback:<requestId>` or `feedback-step:<step>`. */
  key: z.string(),
  answer: JsonValueSchema,
});

export const RequestLogStateSchema = z.object({
  pending: z.array(PendingSelectionSchema),
  answered: z.array(AnsweredSchema),
});
export type RequestLogState = z.output<typeof RequestLogStateSchema>;

const FILE = 'requests.json';

/**
 * What makes select and feedback safe to retry and a crashed trainer able to pick up its step:
 * the selections still waiting for feedback, and the answers of recent requests by request id
 * (and of feedback by the step it answered). It is checkpointed with every change, next to the
 * selector state, so it survives a server restart as exactly as the selector does.
 */
export class RequestLog {
  private pendingList: PendingSelection[] = [];
  private answered = new Map<string, JsonValue>();

  get pending(): readonly PendingSelection[] {
    return this.pendingList;
  }

  /** The remembered answer of a request (or of feedback for a step), if any. */
  answerOf(key: string): JsonValue | undefined {
    return this.answered.get(key);
  }

  remember(key: string, answer: JsonValue): void {
    this.answered.delete(key);
    this.answered.set(key, answer);
    while (this.answered.size > REMEMBERED_REQUESTS) this.answered.delete(this.answered.keys().next().value!);
  }

  addPending(sel: PendingSelection): void {
    this.pendingList.push(sel);
    if (this.pendingList.length > MAX_PENDING) this.pendingList.shift();
  }

  /**
   * Mark a selection as fed: the given step, or (a feedback that names no step) the newest one.
   * Returns the step that was pending, or undefined when none was.
   */
  settle(step: number | undefined): number | undefined {
    const at =
      step === undefined ? this.pendingList.length - 1 : this.pendingList.findIndex((p) => p.step === step);
    if (at < 0) return undefined;
    const [sel] = this.pendingList.splice(at, 1);
    return sel!.step;
  }

  isPending(step: number): boolean {
    return this.pendingList.some((p) => p.step === step);
  }

  state(): RequestLogState {
    return {
      pending: this.pendingList.map((p) => ({ ...p, taskIds: [...p.taskIds] })),
      answered: [...this.answered].map(([key, answer]) => ({ key, answer })),
    };
  }

  load(state: RequestLogState): void {
    this.pendingList = state.pending.map((p) => ({ ...p }));
    this.answered = new Map(state.answered.map((a) => [a.key, a.answer]));
  }

  /** Write the log into a checkpoint folder. */
  writeTo(dir: string): void {
    writeFileAtomicSync(join(dir, FILE), JSON.stringify(this.state()));
  }

  /** The log of a checkpoint folder; an empty one for checkpoints written before the log existed. */
  static readFrom(dir: string): RequestLogState {
    const file = join(dir, FILE);
    if (!existsSync(file)) return { pending: [], answered: [] };
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new DataError({ file, message: `the request log is unreadable: ${(err as Error).message}` });
    }
    const parsed = RequestLogStateSchema.safeParse(raw);
    if (!parsed.success)
      throw new DataError({
        file,
        message: `the request log does not match its schema: ${parsed.error.issues[0]?.message}`,
      });
    return parsed.data;
  }
}
