import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Explorer } from '../explorer/explorer.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import {
  ContextBuilds,
  type QueueWorkerOptions,
  startQueueWorker,
  workerName,
  workerRedis,
} from './queue-worker.ts';
import { ROLLOUT_QUEUE, RolloutJobSchema, type RolloutResult, RunContextSchema } from './rollout-job.ts';
import { applyWeights, VersionGate } from './rollout-weights.ts';
import { decodeWire, encodeWire } from './wire.ts';

export type RolloutWorkerOptions = QueueWorkerOptions;

interface BuiltRun {
  explorer: Explorer;
  loadExplorer?: (dir: string) => Promise<void>;
  /** This process's copy of the run holds one version's weights at a time. */
  gate: VersionGate;
  dispose?: () => void;
}

/**
 * `winnow worker --role explorer`: takes rollout jobs of any run from the queue. Each run's parts
 * are built once per process from the context its coordinator stored (prepareRft: reads only),
 * so a worker rolls out with the run's own model, workflow and reward. It writes nothing: the
 * group's experiences go back as the job's result and the coordinator writes them.
 */
export class RolloutWorker {
  readonly name = workerName();
  private readonly redis: Redis;
  private readonly runs: ContextBuilds<BuiltRun>;
  private worker: Worker | undefined;
  jobsDone = 0;
  private readonly o: RolloutWorkerOptions;

  constructor(o: RolloutWorkerOptions) {
    this.o = o;
    this.redis = workerRedis(o.queue);
    this.runs = new ContextBuilds(this.redis, 'run', (text) => this.buildRun(text));
  }

  async start(): Promise<void> {
    this.worker = await startQueueWorker(ROLLOUT_QUEUE, (job) => this.process(job), this.o, '');
  }

  private async process(job: Job): Promise<string> {
    const data = RolloutJobSchema.parse(job.data);
    this.o.log(`job ${job.id} start: run ${data.runId} step ${data.step} task ${data.task.id}`);
    const built = await this.runs.get(data.context);
    const ref = data.weights;
    // The job's weights (the coordinator's version): loaded before the rollout, once per version.
    if (ref)
      await built.gate.enter(`${ref.kind}:${ref.version}`, () =>
        applyWeights(
          ref,
          {
            model: built.explorer.options.model,
            ...(built.loadExplorer ? { loadExplorer: built.loadExplorer } : {}),
          },
          this.redis,
        ),
      );
    let r: Awaited<ReturnType<Explorer['explore']>>;
    try {
      r = await built.explorer.explore([data.task], data.step, data.version);
    } finally {
      if (ref) built.gate.leave();
    }
    const result: RolloutResult = {
      experiences: r.experiences,
      failures: r.failures,
      metrics: {
        timeouts: r.metrics.timeouts,
        retries: r.metrics.retries,
        emptyResponses: r.metrics.emptyResponses,
      },
      worker: this.name,
    };
    this.jobsDone++;
    this.o.log(
      `job ${job.id} done: ${r.experiences.length} experience(s), ${r.failures.length} failed group(s)`,
    );
    return encodeWire(result);
  }

  private async buildRun(text: string): Promise<BuiltRun> {
    const ctx = RunContextSchema.parse(decodeWire(text));
    // The database may be an object store: its storage options travel in the config (credentials: this machine's environment).
    const storage = (ctx.config as { storageOptions?: Record<string, string> }).storageOptions;
    if (storage) (await import('../store/connection.ts')).setStorageOptions(storage, ctx.dbDir);
    // Loaded on the first job, not at start: a worker is ready (and replaceable) in a fraction of the time.
    const { prepareRft } = await import('../lifecycle/run/rft-build.ts');
    const prepared = await prepareRft(ctx.config as unknown as RftConfig, {
      baseDir: ctx.baseDir,
      ...(ctx.configFile ? { configFile: ctx.configFile } : {}),
      dbDir: ctx.dbDir,
      runDir: ctx.runDir,
      runId: ctx.runId,
      bufferTable: ctx.bufferTable,
      seed: ctx.seed,
    });
    this.o.log(`worker ${this.name}: built run ${ctx.runId}`);
    const load = prepared.parts.loadExplorer;
    return {
      explorer: prepared.parts.explorer,
      gate: new VersionGate(),
      ...(load ? { loadExplorer: (dir: string) => load(dir) } : {}),
      ...(prepared.parts.dispose ? { dispose: () => prepared.parts.dispose?.() } : {}),
    };
  }

  /** Finish running jobs, then leave (SIGINT/SIGTERM). A job not finished in time is reclaimed by others. */
  async close(): Promise<void> {
    await this.worker?.close();
    for (const b of this.runs.all()) (await b.catch(() => null))?.dispose?.();
    this.redis.disconnect();
  }
}
