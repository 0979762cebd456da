import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import type { StepSpec } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';

/** How a chain splits between workers and the main thread. */
export interface RowWisePlan {
  /** The leading steps that run in workers (each batch on one worker). */
  workerSteps: StepSpec[];
  /** Params of the first top-level near_dedup after them: workers compute its MinHash signatures. */
  nearDedupParams: Record<string, unknown> | null;
  /** Params of the first top-level exact_dedup after them: workers compute its key hashes. */
  exactDedupParams: Record<string, unknown> | null;
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
  const firstAfter = (name: string) => {
    if (!isBuiltIn(name)) return null;
    for (let i = k; i < operators.length; i++) {
      const spec = operators[i]!;
      if ('op' in spec && spec.op === name) return spec.params ?? {};
    }
    return null;
  };
  return {
    workerSteps: operators.slice(0, k),
    nearDedupParams: firstAfter('near_dedup'),
    exactDedupParams: firstAfter('exact_dedup'),
    notes,
    textOnly: operators.slice(0, k).every((spec) => builtInDef(spec)?.textOnly === true),
  };
}
