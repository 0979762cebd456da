import type { Task } from '../../core/task.ts';
import { type LlmCallParams, LlmChat, usageMetrics } from '../../models/llm-chat.ts';
import type { Drop, OperatorContext, OperatorResult } from '../operator.ts';

/** Fill `{name}` placeholders (`{prompt}`, `{answer}`, `{rubric}`) in an instruction template. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, k: string) => values[k] ?? whole);
}

/** One line for a quarantine reason, whatever was thrown. */
export function failureReason(op: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `${op}: model call failed: ${msg.replace(/\s+/g, ' ').slice(0, 400)}`;
}

/** Each row's outcome: the rows it becomes (kept or added), or the reason it is quarantined. */
export type RowOutcome = { rows: Task[]; metrics?: Record<string, number> } | { reason: string };

/**
 * Run `perRow` over a batch concurrently (the client's semaphore caps requests in flight), keep
 * the batch order in the output, quarantine failed rows with their reason, and add the client's
 * request, cache, token and cost counters for this batch to the metrics.
 */
export async function processWithLlm(
  chat: LlmChat,
  params: LlmCallParams,
  batch: readonly Task[],
  ctx: OperatorContext,
  perRow: (task: Task) => Promise<RowOutcome>,
): Promise<OperatorResult<Task>> {
  chat.setBaseDir(ctx.baseDir);
  const before = chat.usage();
  const outcomes = await Promise.all(batch.map((t) => perRow(t)));
  const rows: Task[] = [];
  const dropped: Drop<Task>[] = [];
  const metrics: Record<string, number> = {};
  outcomes.forEach((o, i) => {
    if ('reason' in o) {
      dropped.push({ row: batch[i]!, reason: o.reason });
      return;
    }
    rows.push(...o.rows);
    for (const [k, v] of Object.entries(o.metrics ?? {})) metrics[k] = (metrics[k] ?? 0) + v;
  });
  Object.assign(metrics, usageMetrics(before, chat.usage(), params.prices !== undefined));
  return { rows, dropped, metrics };
}

/** The model client of one operator instance (created once per run, so its cache and counters are shared). */
export function createChat(params: LlmCallParams, name: string): LlmChat {
  return new LlmChat(params, { path: `${name}.model` });
}
