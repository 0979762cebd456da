import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Queue, QueueEvents } from 'bullmq';
import { errorMessage } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { ExploreResult, RolloutFailure } from '../core/explore-result.ts';
import { groupIdOf } from '../core/rollout-ids.ts';
import type { Task } from '../core/task.ts';
import { Admission, type StepAdmission } from './admission.ts';
import { jobStats } from './job-stats.ts';
import type { RunLease } from './lease.ts';
import type { QueueLoss } from './queue-loss.ts';
import {
  type RolloutJob,
  type RolloutResult,
  RolloutResultSchema,
  rolloutJobId,
  type WeightsRef,
} from './rollout-job.ts';
import { decodeWire } from './wire.ts';

/** One finished job as the coordinator records it in `<runDir>/scale-jobs.jsonl`. */
export interface JobRecord {
  step: number;
  taskId: string;
  jobId: string;
  worker: string;
  /** Times the job was taken back from a worker that stopped holding it (killed, hung) and redone. */
  reclaimed: number;
  attempts: number;
  experiences: number;
}

export interface QueueRolloutsOptions {
  queue: Queue;
  events: QueueEvents;
  /** The run's context key (rollout-job.ts): workers build the explorer from it. */
  context: string;
  runId: string;
  runDir: string;
  /** Jobs of a step in the queue or running at once (the rate limiter may bound them lower). */
  maxInFlight: number;
  /** Experiences one job inserts (explorer.repeat): what the rate limiter is asked about per job. */
  groupSize?: number;
  lease?: RunLease;
  /** The coordinator's Redis server going away: a step's jobs stop waiting, with one line saying so. */
  loss?: QueueLoss;
  log: (line: string) => void;
}

/**
 * The queue-backed rollout executor: one BullMQ job per task group, results in task order, so an
 * explorer step sees the same experiences as the in-process explorer would produce (workflow seeds
 * depend on (seed, step, task) only). The coordinator alone writes the buffer and feeds the selector.
 */
export class QueueRollouts {
  readonly jobs: JobRecord[] = [];
  /** Each step's backpressure (also in `<runDir>/scale-backpressure.jsonl`). */
  readonly admissions: StepAdmission[] = [];
  private readonly o: QueueRolloutsOptions;
  private admission: Admission;
  private weightsOf: ((version: number) => Promise<WeightsRef | undefined>) | undefined;
  constructor(o: QueueRolloutsOptions) {
    this.o = o;
    this.admission = new Admission({ maxInFlight: o.maxInFlight, groupSize: o.groupSize ?? 1 });
    // Each pending add() listens on the queue once; up to maxInFlight of them at a time is expected.
    o.queue.setMaxListeners(Math.max(o.queue.getMaxListeners(), o.maxInFlight + 10));
  }

  /**
   * The run's parts, once built: `canInsert` is the buffer's rate limiter (per-job backpressure);
   * `weightsOf(version)` names the weights a worker must roll out a job of that version with.
   */
  attach(o: {
    canInsert?: (k: number) => boolean;
    weightsOf?: (version: number) => Promise<WeightsRef | undefined>;
  }): void {
    this.admission = new Admission({
      maxInFlight: this.o.maxInFlight,
      groupSize: this.o.groupSize ?? 1,
      ...(o.canInsert ? { canInsert: o.canInsert } : {}),
    });
    this.weightsOf = o.weightsOf;
  }

  async explore(tasks: readonly Task[], step: number, modelVersion: number): Promise<ExploreResult> {
    this.stopIfLost();
    const t0 = performance.now();
    const out = new StepResults(tasks.length);
    const weights = await this.weightsOf?.(modelVersion);
    const runOne = (i: number) => this.runJob(tasks[i]!, i, step, modelVersion, weights, out);
    const running = this.admission.run(tasks.length, runOne, { step, taskId: (i) => tasks[i]!.id });
    const admitted = await (this.o.loss ? Promise.race([running, this.o.loss.stopped]) : running);
    this.stopIfLost();
    this.record(step, out.records.filter(Boolean));
    this.recordAdmission(admitted);
    return out.result(tasks, performance.now() - t0);
  }

  /** One task group as one job: queued (or found, if an earlier coordinator queued it), awaited, its result kept. */
  private async runJob(
    task: Task,
    i: number,
    step: number,
    version: number,
    weights: WeightsRef | undefined,
    out: StepResults,
  ): Promise<void> {
    const jobId = rolloutJobId(this.o.context, step, version, task.id);
    try {
      const raw = await this.awaitJob(jobId, {
        context: this.o.context,
        runId: this.o.runId,
        step,
        version,
        task,
        ...(weights ? { weights } : {}),
      });
      const result = RolloutResultSchema.parse(decodeWire(String(raw)));
      out.add(i, result);
      const done = await jobStats(this.o.queue, jobId);
      out.records[i] = {
        step,
        taskId: task.id,
        jobId,
        worker: done.processedBy ?? result.worker,
        reclaimed: done.stalledCounter,
        attempts: done.attemptsStarted,
        experiences: result.experiences.length,
      };
    } catch (err) {
      // A job that failed as a whole (the worker could not build the run's parts): the group is recorded, the step goes on.
      out.failures.push({
        taskId: task.id,
        groupId: groupIdOf(step, task.id),
        kind: 'error',
        reason: `rollout job ${jobId}: ${errorMessage(err)}`,
        attempts: 1,
      });
    }
  }

  /** Queue the job (same id, same job: one a killed coordinator added is found, finished or not) and await its result. */
  private async awaitJob(jobId: string, data: RolloutJob): Promise<unknown> {
    const job = await this.o.queue.add('rollout', data, {
      jobId,
      removeOnComplete: { age: 7 * 86_400 },
      removeOnFail: { age: 7 * 86_400 },
      // A worker that could not build the run (its context not stored yet, a path it cannot see) tries again.
      attempts: 3,
      backoff: { type: 'fixed', delay: 500 },
    });
    // A job that failed under an earlier coordinator of this run is tried again, not reported again.
    if (await job.isFailed()) await job.retry('failed');
    return job.waitUntilFinished(this.o.events);
  }

  /** Throw before writing anything more once Redis is gone or the run's lease was lost. */
  private stopIfLost(): void {
    if (this.o.loss?.error) throw this.o.loss.error;
    this.o.lease?.check();
  }

  /** A step whose jobs waited for the rate limiter's bound gets a line in scale-backpressure.jsonl and the log. */
  private recordAdmission(a: StepAdmission): void {
    this.admissions.push(a);
    if (a.waits.length === 0) return;
    appendFileSync(join(this.o.runDir, 'scale-backpressure.jsonl'), `${JSON.stringify(a)}\n`);
    const ms = a.waits.reduce((t, w) => t + w.ms, 0);
    const refused = a.waits.filter((w) => w.refused).length;
    this.o.log(
      `step ${a.step}: at most ${a.bound} rollout job(s) at once; ${a.waits.length} waited ${(ms / 1000).toFixed(1)} s in all${refused > 0 ? `; ${refused} while it refused even one group` : ''}`,
    );
  }

  /** Every finished job goes to scale-jobs.jsonl; the log line says who worked on the step and what was reclaimed. */
  private record(step: number, records: JobRecord[]): void {
    this.jobs.push(...records);
    if (records.length === 0) return;
    appendFileSync(
      join(this.o.runDir, 'scale-jobs.jsonl'),
      records.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    const byWorker = new Map<string, number>();
    for (const r of records) byWorker.set(r.worker, (byWorker.get(r.worker) ?? 0) + 1);
    const reclaimed = records.filter((r) => r.reclaimed > 0);
    const who = [...byWorker].map(([w, n]) => `${w} (${n})`).join(', ');
    this.o.log(
      `step ${step}: ${records.length} rollout job(s) on ${byWorker.size} worker(s): ${who}${reclaimed.length > 0 ? `; ${reclaimed.length} reclaimed after a worker stopped: ${reclaimed.map((r) => r.taskId).join(', ')}` : ''}`,
    );
  }
}

/** A step's job results, gathered as jobs finish, returned in task order. */
class StepResults {
  readonly groups: Array<Experience[] | null>;
  readonly failures: RolloutFailure[] = [];
  readonly records: JobRecord[] = [];
  private readonly metrics = { timeouts: 0, retries: 0, emptyResponses: 0 };

  constructor(tasks: number) {
    this.groups = new Array<Experience[] | null>(tasks).fill(null);
  }

  add(i: number, result: RolloutResult): void {
    this.groups[i] = result.experiences;
    this.failures.push(...result.failures);
    this.metrics.timeouts += result.metrics.timeouts;
    this.metrics.retries += result.metrics.retries;
    this.metrics.emptyResponses += result.metrics.emptyResponses;
  }

  /** The step's experiences in task order; failures sorted by their task's place. */
  result(tasks: readonly Task[], ms: number): ExploreResult {
    const experiences = this.groups.flatMap((g) => g ?? []);
    // A task's first place (as findIndex would give), looked up once per failure.
    const place = new Map<string, number>();
    tasks.forEach((t, i) => {
      if (!place.has(t.id)) place.set(t.id, i);
    });
    return {
      experiences,
      failures: this.failures.sort((a, b) => (place.get(a.taskId) ?? -1) - (place.get(b.taskId) ?? -1)),
      metrics: {
        tasks: tasks.length,
        rollouts: experiences.length,
        failedGroups: this.failures.length,
        ...this.metrics,
        batched: 0,
        ms,
      },
    };
  }
}
