import { z } from 'zod';
import { errorMessage } from '../core/errors.ts';

/**
 * Typed hooks. Every checkpoint of a run emits an event with a payload; a hook can
 * - observe: return nothing;
 * - transform: return `{ rows }` to replace the payload's rows (events that carry rows);
 * - veto: return `{ drop: [{ row, reason }] }` to remove rows — each is recorded as rejected,
 *   with step `hook:<event>:<hook name>` and the reason.
 * Hooks run in registration order; each sees the previous one's output.
 */
export interface HookDrop<R> {
  row: R;
  reason: string;
}

// biome-ignore lint/suspicious/noConfusingVoidType: hooks that only observe are written as functions returning nothing
export type HookReturn<R> = void | undefined | { rows?: R[]; drop?: HookDrop<R>[] };

/** Events whose payload carries `rows` can be transformed or vetoed; the others are observe-only. */
export type RowsOf<P> = P extends { rows: Array<infer R> } ? R : never;

export type HookFn<P> = (payload: Readonly<P>) => HookReturn<RowsOf<P>> | Promise<HookReturn<RowsOf<P>>>;

export interface HookRejection {
  step: string;
  reason: string;
  row: unknown;
}

const HookReturnSchema = z
  .object({
    rows: z.array(z.unknown()).optional(),
    drop: z
      .array(z.object({ row: z.unknown(), reason: z.string().min(1, 'a veto needs a non-empty reason') }))
      .optional(),
  })
  .strict()
  .optional()
  .nullable();

export class HookError extends Error {
  override name = 'HookError';
}

export class Hooks<E extends { [K in keyof E]: object }> {
  private readonly handlers = new Map<keyof E, Array<{ name: string; fn: HookFn<never> }>>();

  on<K extends keyof E>(event: K, fn: HookFn<E[K]>, name = fn.name || `hook${this.count(event) + 1}`): this {
    const list = this.handlers.get(event) ?? [];
    list.push({ name, fn: fn as unknown as HookFn<never> });
    this.handlers.set(event, list);
    return this;
  }

  count(event: keyof E): number {
    return this.handlers.get(event)?.length ?? 0;
  }

  /**
   * Run the hooks of one event. Returns the (possibly changed) payload and what the hooks vetoed.
   * A hook that throws fails the run with the hook's name and event in the message.
   */
  async emit<K extends keyof E>(
    event: K,
    payload: E[K],
  ): Promise<{ payload: E[K]; rejected: HookRejection[] }> {
    const list = this.handlers.get(event);
    const rejected: HookRejection[] = [];
    if (!list || list.length === 0) return { payload, rejected };
    let current = payload;
    for (const { name, fn } of list) {
      let out: unknown;
      try {
        out = await (fn as unknown as HookFn<E[K]>)(current);
      } catch (err) {
        throw new HookError(`hook '${name}' on ${String(event)} failed: ${errorMessage(err)}`);
      }
      const parsed = HookReturnSchema.safeParse(out);
      if (!parsed.success) {
        throw new HookError(
          `hook '${name}' on ${String(event)} returned ${JSON.stringify(out)?.slice(0, 200)}; expected nothing, { rows } or { drop: [{ row, reason }] }`,
        );
      }
      const result = parsed.data;
      if (!result) continue;
      const hasRows = Array.isArray((current as { rows?: unknown }).rows);
      if ((result.rows || result.drop) && !hasRows) {
        throw new HookError(
          `hook '${name}' on ${String(event)} tried to change rows, but this event carries none (observe only)`,
        );
      }
      let rows = (current as unknown as { rows: unknown[] }).rows;
      if (result.rows) rows = result.rows;
      if (result.drop && result.drop.length > 0) {
        const vetoed = new Map<unknown, string>();
        for (const d of result.drop) vetoed.set(d.row, d.reason);
        rows = rows.filter((r) => !vetoed.has(r));
        for (const [row, reason] of vetoed)
          rejected.push({ step: `hook:${String(event)}:${name}`, reason, row });
      }
      current = { ...current, rows } as E[K];
    }
    return { payload: current, rejected };
  }
}
