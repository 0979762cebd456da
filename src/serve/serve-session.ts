import { errorMessage } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import { rejectedPayload } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import type { RunBuffer } from '../lifecycle/run/rft-parts.ts';
import type { OperatorGraph } from '../operators/graph.ts';
import type { Selector, TaskFeedback } from '../selectors/types.ts';
import type { RejectedStore } from '../store/rejected-store.ts';
import { intakeExperiences } from './experience-intake.ts';
import { badRequest, HttpError } from './http-error.ts';
import { RequestLog } from './request-log.ts';
import type {
  AckRequest,
  ExperiencesRequest,
  ExperiencesResponse,
  FeedbackRequest,
  FeedbackResponse,
  MetricsResponse,
  PendingResponse,
  SampleRequest,
  SelectRequest,
  SelectResponse,
} from './schemas.ts';
import { emptyCounters, type ServeCheckpoints, type ServeCounters } from './serve-checkpoint.ts';

/** The parts of a run the server works with (built by prepareRft, see serve-start.ts). */
export interface ServeParts {
  tasks: readonly Task[];
  selector: Selector;
  experienceGraph: OperatorGraph<Experience>;
  buffer: RunBuffer;
}

export interface ServeSessionOptions {
  runId: string;
  parts: ServeParts;
  rejected: RejectedStore;
  checkpoints: ServeCheckpoints;
  /** Tasks per select when the request names no `n` (explorer.batchTasks + extraGroups). */
  defaultSelect: number;
  /** Batch size when a sample request names no `n` (lifecycle.trainBatch, else batchTasks × repeat). */
  defaultSample: number;
}

export interface SampledBatch {
  lease: number;
  experiences: Experience[];
  weights: number[];
  skipped: number;
  blocked?: string;
}

/**
 * A run's selector and buffer behind the API: one request at a time changes them, and each change
 * is checkpointed before its response goes out, so a restarted server continues exactly where the
 * last answered request left it. Requests are checked in full before anything changes: a 4xx
 * leaves the state as it was.
 */
export class ServeSession {
  readonly runId: string;
  private readonly o: ServeSessionOptions;
  private readonly taskById: Map<string, Task>;
  private counters: ServeCounters = emptyCounters();
  private readonly requests = new RequestLog();
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the session stopped taking changes (see `mutate`). */
  private broken: string | undefined;

  private constructor(o: ServeSessionOptions) {
    this.o = o;
    this.runId = o.runId;
    this.taskById = new Map(o.parts.tasks.map((t) => [t.id, t] as const));
  }

  /** Open the session, loading the latest checkpoint when there is one; `restored` says so. */
  static async open(o: ServeSessionOptions): Promise<{ session: ServeSession; restored: boolean }> {
    const session = new ServeSession(o);
    const counters = await o.checkpoints.restore(o.parts.selector, o.parts.buffer, session.requests);
    if (counters) session.counters = counters;
    return { session, restored: counters !== null };
  }

  get revision(): number {
    return this.counters.revision;
  }

  get selectorType(): string {
    return this.o.parts.selector.type;
  }

  /**
   * Run `fn` alone (no other request in between), then checkpoint what it changed. A 4xx from `fn`
   * changed nothing. Any other failure may have left memory ahead of the last checkpoint (a
   * selector that moved, a checkpoint that did not land): the session then refuses every further
   * change, so the only way on is a restart from the checkpoint, which is exact.
   */
  private mutate<T>(fn: () => Promise<T> | T, repeatOf?: () => T | undefined): Promise<T> {
    const run = this.queue.then(async () => {
      // A retried request already answered changes nothing (and needs no checkpoint).
      const repeat = repeatOf?.();
      if (repeat !== undefined) return repeat;
      if (this.broken !== undefined)
        throw new HttpError({
          status: 503,
          code: 'needs_restart',
          message: `an earlier request failed mid-way (${this.broken}); this server takes no more changes`,
          hint: 'restart it with --resume: it continues from the last checkpoint, exactly',
        });
      try {
        const out = await fn();
        this.counters.revision++;
        await this.o.checkpoints.save(
          this.counters,
          this.o.parts.selector,
          this.o.parts.buffer,
          this.requests,
        );
        return out;
      } catch (err) {
        if (!(err instanceof HttpError && err.status < 500)) this.broken = errorMessage(err).split('\n')[0];
        throw err;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Wait for the request in progress (graceful shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  select(req: SelectRequest): Promise<SelectResponse> {
    const n = req.n ?? this.o.defaultSelect;
    const size = this.o.parts.tasks.length;
    if (n > size)
      throw badRequest('n', `n is ${n}, but the task set holds ${size} task(s)`, `ask for at most ${size}`);
    const key = req.requestId !== undefined ? `select:${req.requestId}` : undefined;
    const repeatOf = () => {
      const seen = key !== undefined ? this.requests.answerOf(key) : undefined;
      if (seen === undefined) return undefined;
      const { step, taskIds } = seen as { step: number; taskIds: string[] };
      return { ...this.selection(step, taskIds), repeated: true as const };
    };
    return this.mutate(() => {
      const step = this.counters.selectSteps + 1;
      const taskIds = this.o.parts.selector.select(n, { step });
      this.counters.selectSteps = step;
      this.requests.addPending({ step, taskIds, ...(req.requestId ? { requestId: req.requestId } : {}) });
      if (key !== undefined) this.requests.remember(key, { step, taskIds });
      return this.selection(step, taskIds);
    }, repeatOf);
  }

  private selection(step: number, taskIds: readonly string[]): SelectResponse {
    return { step, taskIds: [...taskIds], tasks: taskIds.map((id) => this.taskById.get(id)!) };
  }

  /** A task of the run by id (undefined for an id that is not the run's). */
  task(id: string): Task | undefined {
    return this.taskById.get(id);
  }

  /** The selections still waiting for their feedback (what a restarted trainer recovers). */
  async pending(): Promise<PendingResponse> {
    await this.queue;
    return {
      selectSteps: this.counters.selectSteps,
      feedbackSteps: this.counters.feedbackSteps,
      pending: this.requests.pending.map((p) => ({
        ...this.selection(p.step, p.taskIds),
        ...(p.requestId !== undefined ? { requestId: p.requestId } : {}),
      })),
    };
  }

  feedback(req: FeedbackRequest): Promise<FeedbackResponse> {
    const results: TaskFeedback[] = req.results.map((r, i) => {
      if (!this.taskById.has(r.taskId))
        throw badRequest(
          `results[${i}].taskId`,
          `unknown task id '${r.taskId}'`,
          'task ids come from POST /v1/select (the run’s task set)',
        );
      const rewards =
        r.rewards !== undefined
          ? r.rewards.map((x) => x ?? Number.NaN)
          : new Array<number>(r.count ?? 1).fill(r.passRate!);
      return { taskId: r.taskId, rewards, ...(r.taskset !== undefined ? { taskset: r.taskset } : {}) };
    });
    if (req.step !== undefined && req.step > this.counters.selectSteps)
      throw badRequest(
        'step',
        `step ${req.step} was never selected`,
        `the newest select step is ${this.counters.selectSteps}`,
      );
    return this.mutate(
      () => this.applyFeedback(req, results),
      () => this.repeatedFeedback(req),
    );
  }

  private applyFeedback(req: FeedbackRequest, results: TaskFeedback[]): FeedbackResponse {
    const selectStep = this.requests.settle(req.step);
    const report = this.o.parts.selector.feedback(results, {
      step: selectStep ?? req.step ?? this.counters.selectSteps,
    });
    this.counters.feedbackSteps++;
    const answer: FeedbackResponse = {
      step: this.counters.feedbackSteps,
      groups: report.groups,
      rewards: report.rewards,
      mixedGroups: report.mixedGroups,
      clippedRewards: report.clippedRewards,
      droppedRewards: report.droppedRewards,
      warnings: report.warnings,
      ...(selectStep !== undefined ? { selectStep } : {}),
    };
    if (req.requestId !== undefined) this.requests.remember(`feedback:${req.requestId}`, answer);
    if (selectStep !== undefined) this.requests.remember(`feedback-step:${selectStep}`, answer);
    return answer;
  }

  /**
   * The first answer of a feedback seen before: the same request id, or a step already fed. A step
   * that was selected but is no longer waiting and whose answer is forgotten is a 409: applying
   * it again would count it twice.
   */
  private repeatedFeedback(req: FeedbackRequest): FeedbackResponse | undefined {
    const byId =
      req.requestId !== undefined ? this.requests.answerOf(`feedback:${req.requestId}`) : undefined;
    if (byId !== undefined) return { ...(byId as FeedbackResponse), repeated: true };
    if (req.step === undefined || this.requests.isPending(req.step)) return undefined;
    const byStep = this.requests.answerOf(`feedback-step:${req.step}`);
    if (byStep !== undefined) return { ...(byStep as FeedbackResponse), repeated: true };
    throw new HttpError({
      status: 409,
      code: 'already_applied',
      message: `select step ${req.step} is not waiting for feedback (it was fed, or is too old to remember)`,
      hint: 'GET /v1/pending lists the selections still waiting for feedback',
    });
  }

  /**
   * Store experiences: defaults filled and layouts checked (400 on the first bad row), then the
   * run's experience operators (advantages, group filters), then one buffer commit. Rows the
   * operators drop are recorded in `rejected` with their reason and returned.
   */
  writeExperiences(req: ExperiencesRequest): Promise<ExperiencesResponse> {
    return this.mutate(async () => {
      const rows = intakeExperiences(req.experiences, {
        taskById: this.taskById,
        selectStep: this.counters.selectSteps,
      });
      const processed = await this.o.parts.experienceGraph.process(rows);
      const dropped = processed.rejected.map((r) => ({
        id: r.row.id,
        step: `exp:${r.step}`,
        reason: r.reason,
      }));
      if (processed.rejected.length > 0) {
        this.o.rejected.add(
          processed.rejected.map((r) => ({
            step: `serve:exp:${r.step}`,
            reason: r.reason,
            rowId: r.row.id,
            runId: this.runId,
            payload: rejectedPayload({
              ...r.row,
              tokens: undefined,
              logprobs: undefined,
              actionMask: undefined,
            }),
          })),
        );
        await this.o.rejected.flush();
      }
      await this.o.parts.buffer.write(processed.rows);
      const c = this.counters;
      c.received += rows.length;
      c.kept += processed.rows.length;
      c.dropped += dropped.length;
      for (const e of rows) c.latestModelVersion = Math.max(c.latestModelVersion, e.modelVersion);
      return {
        received: rows.length,
        kept: processed.rows.length,
        dropped,
        bufferSize: await this.o.parts.buffer.count(),
      };
    });
  }

  /** A batch leased under the next lease number (a buffer train step); acknowledge it with `ack`. */
  sample(req: SampleRequest): Promise<SampledBatch> {
    return this.mutate(async () => {
      const lease = this.counters.leases + 1;
      const batch = await this.o.parts.buffer.sample(req.n ?? this.o.defaultSample, {
        trainStep: lease,
        modelVersion: req.modelVersion ?? this.counters.latestModelVersion,
      });
      this.counters.leases = lease;
      this.counters.sampled += batch.experiences.length;
      this.counters.skippedStale += batch.skipped;
      return {
        lease,
        experiences: batch.experiences,
        weights: batch.weights,
        skipped: batch.skipped,
        ...(batch.blocked ? { blocked: batch.blocked } : {}),
      };
    });
  }

  /** Acknowledge every lease up to `lease` (cumulative, like the buffer's ack; repeating one is harmless). */
  ack(req: AckRequest) {
    if (req.lease > this.counters.leases)
      throw badRequest(
        'lease',
        `lease ${req.lease} was never handed out`,
        this.counters.leases === 0
          ? 'no batch has been sampled yet: POST /v1/sample first'
          : `the newest lease is ${this.counters.leases}`,
      );
    return this.mutate(async () => {
      if (req.lease > this.counters.acknowledgedThrough) {
        await this.o.parts.buffer.ack(req.lease);
        this.counters.acknowledgedThrough = req.lease;
      }
      return { lease: req.lease, acknowledgedThrough: this.counters.acknowledgedThrough };
    });
  }

  async metrics(): Promise<MetricsResponse> {
    await this.queue;
    const c = this.counters;
    return {
      runId: this.runId,
      revision: c.revision,
      selectSteps: c.selectSteps,
      feedbackSteps: c.feedbackSteps,
      leases: c.leases,
      acknowledgedThrough: c.acknowledgedThrough,
      buffer: { size: await this.o.parts.buffer.count() },
      counters: {
        received: c.received,
        kept: c.kept,
        dropped: c.dropped,
        sampled: c.sampled,
        skippedStale: c.skippedStale,
        latestModelVersion: c.latestModelVersion,
      },
      selector: this.o.parts.selector.report(),
    };
  }
}
