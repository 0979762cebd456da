import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../../../src/core/rng.ts';
import type { Task } from '../../../src/core/task.ts';
import type { OperatorContext, OperatorDefinition, OperatorResult } from '../../../src/operators/operator.ts';

export function makeCtx(seed = 1): OperatorContext {
  return { rng: new Rng(seed), seed, runId: 'test', warn: () => {} };
}

export function task(id: string, prompt: string, extra: Partial<Task> = {}): Task {
  return { id, taskset: 't', prompt, features: {}, meta: {}, ...extra };
}

/** Parse `params` with the operator's schema (defaults applied), create it once, run the batches in order. */
export async function run<P>(
  def: OperatorDefinition<Task, P>,
  params: unknown,
  ...batches: Task[][]
): Promise<Required<OperatorResult<Task>>> {
  const op = def.create(def.params.parse(params));
  const ctx = makeCtx();
  const out: Required<OperatorResult<Task>> = { rows: [], dropped: [], metrics: {} };
  for (const batch of batches) {
    const r = await op.process(batch, ctx);
    out.rows.push(...r.rows);
    out.dropped.push(...r.dropped);
    for (const [k, v] of Object.entries(r.metrics ?? {})) out.metrics[k] = (out.metrics[k] ?? 0) + v;
  }
  return out;
}

export const reasons = (r: OperatorResult<Task>) => r.dropped.map((d) => [d.row.id, d.reason]);
export const ids = (rows: Task[]) => rows.map((t) => t.id);

export interface Gsm8kRow {
  question: string;
  answer: string;
}

/** The GSM8K test split shipped in datasets/ (MIT licence). */
export function gsm8k(): Gsm8kRow[] {
  const file = join(import.meta.dirname, '..', '..', '..', 'datasets', 'gsm8k', 'test.jsonl');
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Gsm8kRow);
}

/** GSM8K rows as tasks the way a pipeline holds them after extract_answer. */
export function gsm8kTasks(n?: number): Task[] {
  return gsm8k()
    .slice(0, n)
    .map((r, i) =>
      task(`g${i}`, r.question, {
        answer: r.answer
          .slice(r.answer.lastIndexOf('####') + 4)
          .trim()
          .replace(/,/g, ''),
        meta: { solution: r.answer },
      }),
    );
}
