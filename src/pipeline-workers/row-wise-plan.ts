import type { z } from 'zod';
import { formatPath } from '../core/config.ts';
import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import { type ParsedOpStep, parsedOpStep, type StepSpec } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import type { exactDedupOp } from '../operators/task/exact-dedup.ts';
import type { nearDedupOp } from '../operators/task/near-dedup.ts';

/** near_dedup's and exact_dedup's params as their schemas give them (every default filled). */
export type NearDedupParams = z.output<(typeof nearDedupOp)['params']>;
export type ExactDedupParams = z.output<(typeof exactDedupOp)['params']>;

/** How a chain splits between workers and the main thread. */
export interface RowWisePlan {
  /** The leading steps that run in workers (each batch on one worker), their params parsed. */
  workerSteps: ParsedOpStep[];
  /** Parsed params of the first top-level near_dedup after them: workers compute its MinHash signatures. */
  nearDedupParams: NearDedupParams | null;
  /** Parsed params of the first top-level exact_dedup after them: workers compute its key hashes. */
  exactDedupParams: ExactDedupParams | null;
  /** Why the rest runs on the main thread (shown as a run warning when workers start). */
  notes: string[];
  /** Every worker step is text-only: workers get the tasks' texts, not whole records. */
  textOnly: boolean;
}

/**
 * The longest prefix of `operators` made of built-in row-wise operators (their definition's
 * `rowWise` flag, src/operators/operator.ts; looked up in `registry`, which must hold the same
 * definition as the built-in one: a re-registered name is the user's and stays on the main thread,
 * since workers load the built-ins only). The steps after it run on the main thread, in order.
 * What goes to workers is parsed: steps the door parsed as they are, a step made by hand parsed
 * here, once (graph-spec.ts `parsedOpStep`), so a worker never parses params again.
 */
export function planRowWise(
  operators: readonly StepSpec[],
  registry: Registry<OperatorDefinition<Task, unknown>>,
): RowWisePlan {
  const builtIn = taskOperatorRegistry();
  const isBuiltIn = (name: string) =>
    registry.has(name) && builtIn.has(name) && registry.get(name) === builtIn.get(name);
  const builtInDef = (spec: StepSpec) => ('op' in spec && isBuiltIn(spec.op) ? builtIn.get(spec.op) : null);
  let k = 0;
  for (; k < operators.length; k++) {
    const spec = operators[k]!;
    if (!builtInDef(spec)?.rowWise) break;
    // A step that loads a model tokenizer (Data-Juicer's tokenization: true) stays on the main thread.
    if ('op' in spec && spec.params !== undefined && 'tokenizer' in spec.params) break;
  }
  const notes: string[] = [];
  const stop = operators[k];
  if (stop && 'module' in stop)
    notes.push(
      `workers: step ${k + 1} (module ${stop.module}) and the steps after it run on the main thread: only built-in row-wise operators run in workers`,
    );
  const parsed = (spec: StepSpec, i: number): ParsedOpStep | null =>
    'op' in spec && isBuiltIn(spec.op)
      ? parsedOpStep(spec, builtIn.get(spec.op) as { params: z.ZodType }, formatPath([i], 'operators'))
      : null;
  const firstAfter = (name: string) => {
    if (!isBuiltIn(name)) return null;
    for (let i = k; i < operators.length; i++) {
      const spec = operators[i]!;
      if ('op' in spec && spec.op === name) return parsed(spec, i)!.params;
    }
    return null;
  };
  return {
    workerSteps: operators.slice(0, k).map((spec, i) => parsed(spec, i)!),
    nearDedupParams: firstAfter('near_dedup') as NearDedupParams | null,
    exactDedupParams: firstAfter('exact_dedup') as ExactDedupParams | null,
    notes,
    textOnly: operators.slice(0, k).every((spec) => builtInDef(spec)?.textOnly === true),
  };
}
