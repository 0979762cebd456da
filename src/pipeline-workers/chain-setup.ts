import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import { OperatorGraph } from '../operators/graph.ts';
import { buildGraph, markReceivedParsed } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import { NearDedupSigner } from '../operators/task/near-dedup-signer.ts';
import type { ChainSetup } from './chain-messages.ts';

/** What a worker builds once from its setup: the row-wise chain and the dedup hashers after it. */
export interface WorkerChain {
  graph: OperatorGraph<Task>;
  keyer: ExactDedupKeyer | null;
  signer: NearDedupSigner | null;
}

/**
 * Build a worker's parts from its setup. The main thread sends parsed params (row-wise-plan.ts), so
 * nothing is parsed again here: the steps are built as they are, the hashers take the params as given.
 */
export async function buildWorkerChain(
  setup: ChainSetup,
  registry: Registry<OperatorDefinition<Task, unknown>>,
  onWarn: (step: string, message: string) => void,
): Promise<WorkerChain> {
  const nodes = await buildGraph<Task>(markReceivedParsed(setup.steps), { registry, baseDir: setup.baseDir });
  return {
    graph: new OperatorGraph<Task>(nodes, {
      seed: setup.seed,
      runId: setup.runId,
      baseDir: setup.baseDir,
      onWarn,
    }),
    keyer: setup.exactDedupParams ? new ExactDedupKeyer(setup.exactDedupParams) : null,
    signer: setup.nearDedupParams ? new NearDedupSigner(setup.nearDedupParams) : null,
  };
}
