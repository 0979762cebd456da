import { performance } from 'node:perf_hooks';
import { errorMessage } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { ExploreResult, ExploreRound, RolloutFailure } from '../core/explore-result.ts';
import { hashSeed, Rng } from '../core/rng.ts';
import { groupIdOf } from '../core/rollout-ids.ts';
import type { Task } from '../core/task.ts';
import type { RolloutModel } from '../models/rollout-model.ts';
import type { RewardFn } from './rewards/reward-fn.ts';
import type { Workflow, WorkflowContext } from './workflow.ts';

export interface ExplorerOptions {
  workflow: Workflow;
  model: RolloutModel;
  reward: RewardFn;
  /** Rollouts per task (group size). */
  repeat: number;
  maxTokens: number;
  temperature: number;
  /** Tasks rolled out at once on the per-task path. */
  concurrency: number;
  /** Per task (its whole group); the batched path allows `timeoutMs × tasks / concurrency`. */
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  seed: number;
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort(new TimeoutError(`timed out after ${ms} ms`));
      reject(new TimeoutError(`timed out after ${ms} ms`));
    }, ms);
  });
  return Promise.race([work(ctl.signal), timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Rolls tasks out: one group of `repeat` experiences per task. Uses the model's batched path when
 * the workflow and model support it (the tiny policy: one forward pass per position for the whole
 * step); otherwise runs tasks with bounded concurrency, a per-task timeout and retries with
 * exponential backoff (seeded jitter). A task that still fails is recorded and skipped.
 */
export class Explorer {
  readonly options: ExplorerOptions;
  constructor(options: ExplorerOptions) {
    this.options = options;
  }

  private context(
    task: Task,
    step: number,
    modelVersion: number,
    signal?: AbortSignal,
    round?: ExploreRound,
  ): WorkflowContext {
    // A round's salt gives its rollouts their own seeds (screening and continuation never repeat a sample).
    const seed = round
      ? hashSeed(this.options.seed, step, task.id, round.salt)
      : hashSeed(this.options.seed, step, task.id);
    return {
      repeat: round?.repeat ?? this.options.repeat,
      exploreStep: step,
      modelVersion,
      reward: this.options.reward,
      maxTokens: this.options.maxTokens,
      temperature: this.options.temperature,
      seed,
      rng: new Rng(seed),
      ...(signal ? { signal } : {}),
    };
  }

  async explore(
    tasks: readonly Task[],
    step: number,
    modelVersion: number,
    round?: ExploreRound,
  ): Promise<ExploreResult> {
    const t0 = performance.now();
    const metrics = {
      tasks: tasks.length,
      rollouts: 0,
      failedGroups: 0,
      timeouts: 0,
      retries: 0,
      emptyResponses: 0,
      batched: 0,
      ms: 0,
    };
    const groups = new Array<Experience[] | null>(tasks.length).fill(null);
    const failures: RolloutFailure[] = [];
    const pending = await this.exploreBatched(tasks, step, modelVersion, round, groups);
    metrics.batched = tasks.length - pending.length;
    await this.exploreOneByOne(tasks, pending, step, modelVersion, round, groups, failures, metrics);

    const experiences: Experience[] = [];
    for (const g of groups) {
      if (!g) continue;
      for (const e of g) {
        experiences.push(e);
        if (e.info.empty === true) metrics.emptyResponses++;
      }
    }
    metrics.rollouts = experiences.length;
    metrics.failedGroups = failures.length;
    metrics.ms = performance.now() - t0;
    return { experiences, failures, metrics };
  }

  /**
   * With a workflow that splits into prepare/finish and a model that generates in batches: every
   * task's requests in one call, then every group scored at once. Returns the tasks left to run
   * one by one (all of them when the batched call failed as a whole).
   */
  private async exploreBatched(
    tasks: readonly Task[],
    step: number,
    modelVersion: number,
    round: ExploreRound | undefined,
    groups: (Experience[] | null)[],
  ): Promise<number[]> {
    const o = this.options;
    const all = tasks.map((_, i) => i);
    if (!(o.workflow.prepare && o.workflow.finish && o.model.generateBatch && tasks.length > 0)) return all;
    try {
      const budget = o.timeoutMs * Math.max(1, Math.ceil(tasks.length / Math.max(1, o.concurrency)));
      const gens = await withTimeout((signal) => {
        const reqs = tasks.map((t) =>
          o.workflow.prepare!(t, this.context(t, step, modelVersion, signal, round)),
        );
        return o.model.generateBatch!(reqs);
      }, budget);
      // Every group is finished (scored) at once: rewards judged on worker threads overlap.
      const finished = await Promise.allSettled(
        tasks.map(async (t, i) =>
          o.workflow.finish!(t, gens[i] ?? [], this.context(t, step, modelVersion, undefined, round)),
        ),
      );
      const pending: number[] = [];
      finished.forEach((r, i) => {
        if (r.status === 'fulfilled') groups[i] = r.value;
        else pending.push(i);
      });
      return pending;
    } catch {
      // The batched call failed as a whole: fall back to task-by-task so one bad task costs one group.
      return all;
    }
  }

  /** Run the `pending` tasks' workflows, `concurrency` at a time, each with its timeout and retries. */
  private async exploreOneByOne(
    tasks: readonly Task[],
    pending: readonly number[],
    step: number,
    modelVersion: number,
    round: ExploreRound | undefined,
    groups: (Experience[] | null)[],
    failures: RolloutFailure[],
    metrics: { timeouts: number; retries: number },
  ): Promise<void> {
    const o = this.options;
    const jitter = new Rng(hashSeed(o.seed, 'backoff', step));
    const runOne = async (i: number) => {
      const task = tasks[i]!;
      let attempt = 0;
      for (;;) {
        attempt++;
        try {
          groups[i] = await withTimeout(
            (signal) => o.workflow.run(task, o.model, this.context(task, step, modelVersion, signal, round)),
            o.timeoutMs,
          );
          return;
        } catch (err) {
          const timeout = err instanceof TimeoutError || (err as Error)?.name === 'TimeoutError';
          if (timeout) metrics.timeouts++;
          if (attempt > o.retries) {
            failures.push({
              taskId: task.id,
              groupId: groupIdOf(step, task.id),
              kind: timeout ? 'timeout' : 'error',
              reason: errorMessage(err),
              attempts: attempt,
            });
            return;
          }
          metrics.retries++;
          await sleep(o.backoffMs * 2 ** (attempt - 1) * (0.5 + jitter.float()));
        }
      }
    };
    let next = 0;
    const workers = Array.from({ length: Math.min(Math.max(1, o.concurrency), pending.length) }, async () => {
      while (next < pending.length) await runOne(pending[next++]!);
    });
    await Promise.all(workers);
  }
}
