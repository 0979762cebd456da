import { performance } from 'node:perf_hooks';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Task } from '../core/task.ts';
import { mapRecords } from '../io/map-records.ts';
import { type CompiledMapping, compileMapping } from '../io/mapping.ts';
import type { TaskPipelineConfig } from '../lifecycle/pipeline/task-pipeline-config.ts';
import type { GraphNode } from '../operators/graph.ts';
import { OperatorGraph } from '../operators/graph.ts';
import { exactDedupOp } from '../operators/task/exact-dedup.ts';
import { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import {
  PIPELINE_QUEUE,
  PipelineContextSchema,
  type ShardBatch,
  ShardJobSchema,
  type ShardResult,
  shardRowsKey,
} from './pipeline-job.ts';
import { readShard } from './pipeline-shards.ts';
import {
  ContextBuilds,
  type QueueWorkerOptions,
  startQueueWorker,
  workerName,
  workerRedis,
} from './queue-worker.ts';
import { ShardFrameBuilder } from './shard-frame-builder.ts';
import { decodeWire } from './wire.ts';

export type PipelineWorkerOptions = QueueWorkerOptions;

interface BuiltPipeline {
  config: TaskPipelineConfig;
  mapping: CompiledMapping;
  /** The pipeline's leading row-wise steps (the same split as worker threads use). */
  nodes: readonly GraphNode<Task>[];
  seed: number;
  runId: string;
  baseDir: string;
  /** exact_dedup's key hashing, when the chain has one after the row-wise steps. */
  keyer: ExactDedupKeyer | null;
  /** Encode the cleaned rows in the task table's layout (PipelineContext.encodeRows). */
  encodeRows: boolean;
  /** Measure them for the run's report (PipelineContext.measureRows). */
  measureRows: boolean;
}

/**
 * `winnow worker --role pipeline`: takes shards of task pipelines started with `winnow run --queue`.
 * It reads its shard, maps the rows and runs the pipeline's leading row-wise operators; the cleaned
 * rows and every rejected record (with file and line) go back as the job's result. Where the rest of
 * the chain is exact_dedup alone, the rows go to Redis as one binary frame — encoded in the task
 * table's layout, their dedup key hashes beside them (shard-frame.ts) — and the job's result says
 * only where it is and what it holds; the coordinator lands them without decoding them. It
 * commits nothing: the coordinator runs the rest of the chain (exact dedup across shards included)
 * and is the table's single committer.
 */
export class PipelineWorker {
  readonly name = workerName();
  private readonly redis: Redis;
  private readonly runs: ContextBuilds<BuiltPipeline>;
  private worker: Worker | undefined;
  jobsDone = 0;
  private readonly o: PipelineWorkerOptions;

  constructor(o: PipelineWorkerOptions) {
    this.o = o;
    this.redis = workerRedis(o.queue);
    this.runs = new ContextBuilds(this.redis, 'pipeline', (text) => this.buildRun(text));
  }

  async start(): Promise<void> {
    this.worker = await startQueueWorker(
      PIPELINE_QUEUE,
      (job) => this.process(job),
      this.o,
      ' for pipeline shards',
    );
  }

  private async process(job: Job): Promise<ShardResult> {
    const data = ShardJobSchema.parse(job.data);
    const { shard } = data;
    this.o.log(`job ${job.id} start: run ${data.runId} shard ${shard.index} (${shard.file})`);
    const built = await this.runs.get(data.context);
    const warnings: ShardBatch['warnings'] = [];
    const graph = new OperatorGraph<Task>(built.nodes, {
      seed: built.seed,
      runId: built.runId,
      baseDir: built.baseDir,
      onWarn: (step, message) => warnings.push({ step, message }),
    });
    const { path: _path, ...read } = built.config.input;
    const batches: ShardBatch[] = [];
    const frame = built.encodeRows
      ? new ShardFrameBuilder(built.runId, built.keyer, built.measureRows)
      : null;
    for await (const batch of readShard(shard, read)) {
      const t0 = performance.now();
      const mapped = mapRecords(built.mapping, batch.records);
      const mapMs = performance.now() - t0;
      const out = await graph.process(mapped.tasks);
      frame?.add(out.rows);
      batches.push({
        records: batch.records.length,
        readRejected: batch.rejected,
        mapRejected: mapped.rejected,
        mapMs,
        tasksJson: frame ? '[]' : JSON.stringify(out.rows),
        tasks: out.rows.length,
        exact: built.keyer && !frame ? exactKeysOf(built.keyer, out.rows) : null,
        rejected: out.rejected as unknown as ShardBatch['rejected'],
        warnings: warnings.splice(0),
      });
    }
    const stored = frame ? await this.storeFrame(job, frame) : null;
    const result: ShardResult = { batches, metrics: graph.metrics(), worker: this.name, frame: stored };
    this.jobsDone++;
    const rows = batches.reduce((n, b) => n + b.tasks, 0);
    this.o.log(`job ${job.id} done: shard ${shard.index}, ${rows} row(s)`);
    // An object, which BullMQ stores as JSON once (a returned string would be encoded twice, its
    // rows' JSON escaped again, and parsed twice by the coordinator, the part that does not scale
    // out). Every number in it is finite: rows travel as JSON text already.
    return result;
  }

  /**
   * The shard's frame (its encoded rows and their sidecar, shard-frame.ts) under a key named by the
   * job: a redone job overwrites it with the same rows. Nothing reaches the table until the
   * coordinator commits them.
   */
  private async storeFrame(job: Job, frame: ShardFrameBuilder): Promise<NonNullable<ShardResult['frame']>> {
    const built = frame.finish(shardRowsKey(job.id!));
    await this.redis.set(built.frame.key, built.bytes, 'EX', 7 * 86_400);
    return built.frame;
  }

  private async buildRun(text: string): Promise<BuiltPipeline> {
    const ctx = PipelineContextSchema.parse(decodeWire(text));
    const config = ctx.config as unknown as TaskPipelineConfig;
    // Loaded on the first job: a worker is ready (and replaceable) in a fraction of the time.
    const { buildGraph } = await import('../operators/graph-spec.ts');
    const { taskOperatorRegistry } = await import('../operators/registries.ts');
    const { planRowWise } = await import('../pipeline-workers/row-wise-plan.ts');
    const { withRunResources } = await import('../lifecycle/run/run-resources.ts');
    const registry = taskOperatorRegistry();
    const plan = planRowWise(config.operators, registry);
    const resources = withRunResources(registry, { dbDir: ctx.dbDir, baseDir: ctx.baseDir });
    const nodes = await buildGraph<Task>(config.operators, {
      registry: resources.registry,
      baseDir: ctx.baseDir,
      path: 'operators',
      ...(ctx.configFile ? { file: ctx.configFile } : {}),
    });
    this.o.log(
      `worker ${this.name}: built pipeline run ${ctx.runId} (${plan.workerSteps.length} row-wise step(s))`,
    );
    return {
      config,
      mapping: compileMapping(config.mapping),
      nodes: nodes.slice(0, plan.workerSteps.length),
      seed: ctx.seed,
      runId: ctx.runId,
      baseDir: ctx.baseDir,
      keyer: plan.exactDedupParams
        ? new ExactDedupKeyer(exactDedupOp.params.parse(plan.exactDedupParams))
        : null,
      encodeRows: ctx.encodeRows,
      measureRows: ctx.measureRows,
    };
  }

  /** Finish running shards, then leave (SIGINT/SIGTERM). A shard not finished in time is reclaimed by others. */
  async close(): Promise<void> {
    await this.worker?.close();
    this.redis.disconnect();
  }
}

function exactKeysOf(keyer: ExactDedupKeyer, tasks: readonly Task[]): NonNullable<ShardBatch['exact']> {
  const { keys, checks } = keyer.hashAll(tasks);
  return { params: keyer.key, field: keyer.field, keys: Array.from(keys), checks: Array.from(checks) };
}
