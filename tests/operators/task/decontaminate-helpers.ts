import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Task } from '../../../src/core/task.ts';
import type { OperatorResult } from '../../../src/operators/operator.ts';
import { decontaminateOp, decontaminateOperator } from '../../../src/operators/task/decontaminate.ts';
import type { DedupIndexStore } from '../../../src/operators/task/dedup-index.ts';
import { makeCtx } from './helpers.ts';

export const GSM8K_TEST = join(import.meta.dirname, '..', '..', '..', 'datasets', 'gsm8k', 'test.jsonl');

export function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'winnow-decontam-'));
}

/** Create the operator once, run the batches, then flush (where the index is recorded). */
export async function runOp(
  params: unknown,
  batches: Task[][],
  opts: { store?: DedupIndexStore; runId?: string } = {},
): Promise<Required<OperatorResult<Task>> & { warnings: string[] }> {
  const def = opts.store ? decontaminateOperator({ index: opts.store }) : decontaminateOp;
  const op = def.create(def.params.parse(params));
  const warnings: string[] = [];
  const ctx = { ...makeCtx(), runId: opts.runId ?? 'test', warn: (m: string) => warnings.push(m) };
  const out = {
    rows: [] as Task[],
    dropped: [] as OperatorResult<Task>['dropped'],
    metrics: {} as Record<string, number>,
  };
  for (const batch of [...batches, null]) {
    const r = batch === null ? await op.flush!(ctx) : await op.process(batch, ctx);
    out.rows.push(...r.rows);
    out.dropped.push(...r.dropped);
    for (const [k, v] of Object.entries(r.metrics ?? {})) out.metrics[k] = (out.metrics[k] ?? 0) + v;
  }
  return { ...out, warnings };
}
