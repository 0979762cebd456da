import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import type { ColumnarForm } from '../operators/columnar/form.ts';
import type { StepSpec } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';

/**
 * The longest prefix of a chain whose steps all declare a column-wise form for their params
 * (OperatorDefinition.columnar): those steps may run in the engine (columnar-graph.ts). A branch,
 * a module, or an operator without a form for its params ends the prefix.
 */
export function planColumnar(
  operators: readonly StepSpec[],
  registry: Registry<OperatorDefinition<Task, unknown>>,
): ColumnarForm[] {
  const forms: ColumnarForm[] = [];
  for (const spec of operators) {
    if (!('op' in spec) || !registry.has(spec.op)) break;
    const def = registry.get(spec.op);
    if (def.columnar === undefined) break;
    const params = def.params.safeParse(spec.params ?? {});
    if (!params.success) break;
    const form = def.columnar(params.data);
    if (form === null) break;
    forms.push(form);
  }
  return forms;
}
