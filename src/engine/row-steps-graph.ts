import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import { type GraphNode, type GraphOptions, OperatorGraph } from '../operators/graph.ts';
import type { StepSpec } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { ColumnarGraph } from './columnar-graph.ts';
import { planColumnar } from './columnar-plan.ts';
import { DuckDBColumns } from './duckdb-columns.ts';

/** `engine` of a task pipeline: `duckdb` runs a column-wise prefix in DuckDB, `rows` never does. */
export type EngineChoice = 'rows' | 'duckdb';

export interface RowStepsGraph {
  graph: OperatorGraph<Task>;
  /** How many leading steps run in the engine (0: the row path). */
  engineSteps: number;
  close(): void;
}

/**
 * The graph of a run's leading row-wise steps (`specs`, built as `nodes`): on the engine when the
 * chain starts with operators that declare a column-wise form, `engine` is `duckdb` and the steps run
 * on the main thread (`workers: 0`; workers run the row path), else the plain OperatorGraph.
 */
export async function rowStepsGraph(
  nodes: readonly GraphNode<Task>[],
  opts: GraphOptions,
  how: {
    specs: readonly StepSpec[];
    registry: Registry<OperatorDefinition<Task, unknown>>;
    engine: EngineChoice;
    workers: number | 'auto';
  },
): Promise<RowStepsGraph> {
  const forms = how.engine === 'duckdb' && how.workers === 0 ? planColumnar(how.specs, how.registry) : [];
  if (forms.length === 0) return { graph: new OperatorGraph<Task>(nodes, opts), engineSteps: 0, close() {} };
  const engine = await DuckDBColumns.open();
  return {
    graph: new ColumnarGraph(nodes, opts, forms, engine),
    engineSteps: forms.length,
    close: () => engine.close(),
  };
}
