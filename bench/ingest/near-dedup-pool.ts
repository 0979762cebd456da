// near_dedup over a list of tasks the way a pipeline with workers runs it: workers compute the
// MinHash signatures of each batch, the main thread keeps the LSH index and decides, in order.
import { performance } from 'node:perf_hooks';
import type { Task } from '../../src/core/task.ts';
import { compileMapping, FieldMappingSchema } from '../../src/io/mapping.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { nearDedupOp } from '../../src/operators/task/near-dedup.ts';
import { RowStage, type StagedBatch } from '../../src/pipeline-workers/row-stage.ts';

export interface DedupRun {
  secs: number;
  cpuSecs: number;
  kept: number;
  dropped: Array<{ row: Task; reason: string }>;
  workers: number;
}

/** Run `near_dedup` (params `params`) over `tasks` in batches of `batch`, on `workers` threads (0: here). */
export async function nearDedupPooled(
  tasks: readonly Task[],
  opts: { workers: number; seed: number; batch?: number; params?: Record<string, unknown> },
): Promise<DedupRun> {
  const batch = opts.batch ?? 8192;
  const params = opts.params ?? {};
  const registry = taskOperatorRegistry();
  const graph = new OperatorGraph<Task>(
    await buildGraph<Task>([{ op: 'near_dedup', params }], { registry, baseDir: '.' }),
    { seed: opts.seed },
  );
  const mapping = FieldMappingSchema.parse({ taskset: 'bench', prompt: 'prompt' });
  const stage = new RowStage({
    workers: opts.workers,
    autoStartRows: 0,
    graph: new OperatorGraph<Task>([], { seed: opts.seed }),
    setup: {
      steps: [],
      seed: opts.seed,
      runId: 'bench',
      baseDir: '.',
      mapping,
      // Workers take parsed params (row-wise-plan.ts); parsed here, as a run's door would.
      nearDedupParams: nearDedupOp.params.parse(params),
      exactDedupParams: null,
    },
    mapping: compileMapping(mapping),
  });
  // Start the workers (module loading) before the clock: copies, so nothing is indexed twice.
  if (opts.workers > 0) await stage.submit({ tasks: structuredClone(tasks.slice(0, 64)) }, 0);
  const dropped: DedupRun['dropped'] = [];
  let kept = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const queue: Promise<StagedBatch>[] = [];
    const landOldest = async () => {
      const staged = await queue.shift()!;
      const out = await graph.process(staged.tasks);
      kept += out.rows.length;
      for (const r of out.rejected) dropped.push({ row: r.row, reason: r.reason });
    };
    for (let i = 0; i < tasks.length; i += batch) {
      queue.push(stage.submit({ tasks: tasks.slice(i, i + batch) }, i));
      while (queue.length >= stage.window) await landOldest();
    }
    while (queue.length > 0) await landOldest();
  } finally {
    await stage.close();
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    secs: (performance.now() - t0) / 1000,
    cpuSecs: (cpu.user + cpu.system) / 1e6,
    kept,
    dropped,
    workers: opts.workers,
  };
}
