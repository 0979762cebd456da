import type { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import { type RowStepsGraph, rowStepsGraph } from '../../engine/row-steps-graph.ts';
import type { CompiledMapping } from '../../io/mapping.ts';
import type { GraphNode, GraphOptions } from '../../operators/graph.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import { RowStage } from '../../pipeline-workers/row-stage.ts';
import type { RowWisePlan } from '../../pipeline-workers/row-wise-plan.ts';
import type { TaskPipelineConfig } from './task-pipeline-config.ts';
import { lastExactDedup } from './task-pipeline-ids.ts';
import { readOptionsOf } from './task-pipeline-inputs.ts';

/**
 * The row-wise part of a pipeline run: the leading steps that declare a column-wise form run in the
 * engine, batch by batch (src/engine); the leading row-wise steps may run on worker threads
 * (`plan.workerSteps`). `nodes` are the chain's built steps; only its first `plan.workerSteps.length`
 * run here. The caller closes both the stage and `rowSteps`.
 */
export async function openRowWiseStage(a: {
  nodes: readonly GraphNode<Task>[];
  plan: RowWisePlan;
  graphOptions: GraphOptions;
  config: TaskPipelineConfig;
  registry: Registry<OperatorDefinition<Task, unknown>>;
  mapping: CompiledMapping;
  seed: number;
  runId: string;
  baseDir: string;
  warn: (message: string) => void;
}): Promise<{ rowSteps: RowStepsGraph; stage: RowStage }> {
  const { plan, config, warn } = a;
  const rowSteps = await rowStepsGraph(a.nodes.slice(0, plan.workerSteps.length), a.graphOptions, {
    specs: plan.workerSteps,
    registry: a.registry,
    engine: config.engine,
    workers: config.workers,
  });
  const stage = new RowStage({
    workers: config.workers,
    autoStartRows: 2 * (readOptionsOf(config.input).batchSize ?? 8192),
    graph: rowSteps.graph,
    setup:
      plan.workerSteps.length > 0 || plan.nearDedupParams || plan.exactDedupParams
        ? {
            steps: plan.workerSteps,
            seed: a.seed,
            runId: a.runId,
            baseDir: a.baseDir,
            mapping: config.mapping,
            nearDedupParams: plan.nearDedupParams,
            exactDedupParams: plan.exactDedupParams,
            textOnly: plan.textOnly,
          }
        : null,
    mapping: a.mapping,
    textOnly: plan.textOnly,
    // The rest of the chain is exact_dedup alone: JSONL chunks may come back encoded (with
    // `checkIds: false` the writer's id check runs on the encoded rows' ids, task-pipeline-encoded.ts).
    encode:
      plan.workerSteps.length === config.operators.length - 1 && lastExactDedup(config.operators, a.registry)
        ? { measure: config.output.report }
        : null,
    onPoolStart: () => {
      for (const note of plan.notes) warn(note);
    },
  });
  if (stage.workers === 0 && typeof config.workers === 'number' && config.workers > 0)
    warn(
      `workers: ${config.workers} has nothing to run: the chain starts with no built-in row-wise operator and holds no exact_dedup or near_dedup, so every step runs on the main thread`,
    );
  return { rowSteps, stage };
}
