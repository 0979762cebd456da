import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Experience } from '../../core/experience.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import { rejectedPayload } from '../../core/rejected.ts';
import type { Task } from '../../core/task.ts';
import { Hooks } from '../hooks.ts';
import { restoreLatestCheckpoint, saveCheckpoint } from './checkpoint.ts';
import { CheckpointStore } from './checkpoint-files.ts';
import { crashPoint } from './crash-points.ts';
import { evalSetsDue, evaluateSetsAt } from './evaluate-step.ts';
import { INITIAL_PREFIX, initialEvaluation } from './evaluation/evaluate-sets.ts';
import { RolloutExampleLog } from './evaluation/rollout-examples.ts';
import {
  EXP_WARNINGS_KEY,
  type OperatorStepRecorder,
  operatorMetricKeys,
  operatorRecorder,
} from './operator-report.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftEvents } from './rft-events.ts';
import type { RftParts } from './rft-parts.ts';
import type { ExploreNumbers, StepRecord } from './step-record.ts';
import { writingTable } from './table-write.ts';
import type { TrainedStep } from './train-step.ts';
import type { RftRunOptions, RftRunResult } from './types.ts';

/** A hook veto as the hooks report it. */
interface Veto {
  step: string;
  reason: string;
  row: unknown;
}

/**
 * Everything one run carries from step to step — counters, history, step / train-step / explorer
 * version, the hold-back of re-usable rollouts, the metrics file — and the operations every mode
 * driver shares: recording rejected rows, syncing weights, writing the buffer, finishing a step
 * (evaluation, metrics line, checkpoint). Drivers decide only the order of explore, train and sync.
 */
export class RunState {
  readonly opts: RftRunOptions;
  readonly config: RftConfig;
  readonly parts: RftParts;
  readonly hooks: Hooks<RftEvents>;
  readonly log: (line: string) => void;
  readonly checkpoints: CheckpointStore;
  readonly metricsFile: string;
  readonly taskById: Map<string, Task>;
  /** The last explorer step this invocation runs (`stopAfter` cuts a run short for resume tests). */
  readonly last: number;
  private readonly startedAt = performance.now();
  /** Per-step metrics and warnings of the experience operators (src/lifecycle/run/operator-report.ts). */
  readonly operatorSteps: OperatorStepRecorder;
  /** The best and the worst rollout of each step (`rollout-examples.jsonl`). */
  readonly examples: RolloutExampleLog;

  step = 0;
  trainSteps = 0;
  explorerVersion = 0;
  history: StepRecord[] = [];
  readonly counters: Record<string, number> = {
    rollouts: 0,
    failedGroups: 0,
    rejected: 0,
    trained: 0,
    vetoed: 0,
  };
  initialAccuracy: number | undefined;
  resumedFrom = 0;
  /** Rollout groups written before a crash but after the checkpoint, by group id (see RunBuffer.resume). */
  readonly holdback = new Map<string, Experience[]>();

  constructor(opts: RftRunOptions) {
    this.opts = opts;
    this.config = opts.config;
    this.parts = opts.parts;
    this.hooks = opts.hooks ?? new Hooks<RftEvents>();
    this.log = opts.log ?? (() => undefined);
    this.checkpoints = new CheckpointStore(opts.runDir);
    mkdirSync(opts.runDir, { recursive: true });
    this.metricsFile = join(opts.runDir, 'metrics.jsonl');
    this.taskById = new Map(opts.parts.tasks.map((t) => [t.id, t] as const));
    const steps = opts.config.lifecycle.steps;
    this.last = Math.min(steps, opts.stopAfter ?? steps);
    this.operatorSteps = operatorRecorder(opts.parts.experienceGraph);
    this.examples = new RolloutExampleLog(opts.runDir);
  }

  get lifecycle(): RftConfig['lifecycle'] {
    return this.config.lifecycle;
  }

  count(name: string, by: number): void {
    this.counters[name] = (this.counters[name] ?? 0) + by;
  }

  /** Queue rejected rows (flushed with the next `recordRejected` or at the end of the run). */
  reject(rows: RejectedInput[]): void {
    this.count('rejected', rows.length);
    this.opts.rejected.add(rows.map((r) => ({ runId: this.opts.runId, ...r })));
  }

  /** Record rejected rows and flush them to the `rejected` table now. */
  async recordRejected(rows: RejectedInput[]): Promise<void> {
    if (rows.length === 0) return;
    this.reject(rows);
    await this.flushRejected();
  }

  /** Hook vetoes as rejected rows (counted as `vetoed`). */
  vetoes(rows: Veto[]): RejectedInput[] {
    return rows.map((r) => {
      const row = r.row as { id?: string; source?: { file: string; row: number } };
      this.count('vetoed', 1);
      return {
        step: r.step,
        reason: r.reason,
        rowId: row?.id ?? '',
        file: row?.source?.file ?? '',
        row: row?.source?.row ?? -1,
        payload: rejectedPayload(r.row),
      };
    });
  }

  /** Keep experiences the buffer handed back on resume, for the explorer to re-use at their step. */
  holdBack(experiences: readonly Experience[]): void {
    for (const e of experiences) {
      const list = this.holdback.get(e.groupId) ?? [];
      list.push(e);
      this.holdback.set(e.groupId, list);
    }
  }

  /**
   * Resume from the latest checkpoint when asked to; a run at step 0 starts a fresh metrics file and,
   * when `evaluateFirst`, measures held-out accuracy before anything changes the model.
   */
  async begin(o: { evaluateFirst: boolean }): Promise<void> {
    if (this.opts.resume) await restoreLatestCheckpoint(this);
    this.examples.keepUpTo(this.step);
    if (this.step !== 0) return;
    writeFileSync(this.metricsFile, '');
    await this.recordStartRejected();
    const heldout = this.parts.heldout;
    if (heldout.length > 0 && o.evaluateFirst) {
      this.initialAccuracy = await this.parts.evaluate(heldout);
      this.counters.initialAccuracy = this.initialAccuracy;
      await this.hooks.emit('onEvaluate', { step: 0, accuracy: this.initialAccuracy, tasks: heldout.length });
      this.log(`held-out accuracy before training: ${(this.initialAccuracy * 100).toFixed(1)}%`);
    }
    if (o.evaluateFirst)
      for (const [k, v] of Object.entries(await evaluateSetsAt(this, 0)))
        this.counters[INITIAL_PREFIX + k] = v;
    const initial = {
      ...(this.initialAccuracy !== undefined ? { accuracy: this.initialAccuracy } : {}),
      ...initialEvaluation(this.counters),
    };
    if (Object.keys(initial).length > 0) this.opts.onStart?.(initial);
  }

  /** The task sources' start-up rejections, recorded by a run starting at step 0 (not counted as `rejected`: that counter is the loop's own). */
  async recordStartRejected(): Promise<void> {
    this.opts.rejected.add(this.opts.startRejected ?? []);
    await this.flushRejected();
  }

  /** Commit the queued rejected rows. */
  async flushRejected(): Promise<void> {
    await writingTable('rejected', () => this.opts.rejected.flush());
  }

  /** The experience buffer's table (named when a write to it fails). */
  get bufferTable(): string {
    return this.opts.bufferTable ?? `${this.opts.runId}_experiences`;
  }

  async syncWeights(atStep: number): Promise<void> {
    this.explorerVersion = await this.parts.sync();
    await this.hooks.emit('onSync', { step: atStep, version: this.explorerVersion });
  }

  async writeBuffer(atStep: number, rows: Experience[]): Promise<void> {
    await writingTable(this.bufferTable, () => this.parts.buffer.write(rows));
    await this.hooks.emit('afterBufferWrite', { step: atStep, written: rows.length });
  }

  /** The step record of an explorer step (key order is the metrics.jsonl column order). */
  stepRecord(s: {
    step: number;
    explorerVersion: number;
    numbers: ExploreNumbers;
    train: TrainedStep | null;
    exploreMs: number;
    stepMs: number;
  }): StepRecord {
    const { operators, tools, ...numbers } = s.numbers;
    return {
      step: s.step,
      explorerVersion: s.explorerVersion,
      trainSteps: this.trainSteps,
      ...numbers,
      trainLoss: s.train ? (s.train.metrics.loss ?? Number.NaN) : Number.NaN,
      exploreMs: s.exploreMs,
      trainMs: s.train?.ms ?? 0,
      stepMs: s.stepMs,
      rolloutsPerSecond: s.numbers.rollouts / Math.max(1e-3, s.exploreMs / 1000),
      ...tools,
      ...(operators ? operatorMetricKeys(operators) : {}),
      ...(operators && operators.warnings.first.length > 0
        ? { [EXP_WARNINGS_KEY]: operators.warnings.first }
        : {}),
    };
  }

  /** Held-out evaluation when due, the metrics line, and a checkpoint when due. */
  async finishStep(rec: StepRecord): Promise<void> {
    const lc = this.lifecycle;
    const heldout = this.parts.heldout;
    if (
      heldout.length > 0 &&
      this.config.heldout &&
      (rec.step % this.config.heldout.every === 0 || rec.step === lc.steps)
    ) {
      rec.accuracy = await this.parts.evaluate(heldout);
      await this.hooks.emit('onEvaluate', { step: rec.step, accuracy: rec.accuracy, tasks: heldout.length });
    }
    if (evalSetsDue(this, rec.step)) Object.assign(rec, await evaluateSetsAt(this, rec.step));
    this.appendRecord(rec, lc.steps);
    crashPoint('step', rec.step);
    if (rec.step % lc.checkpointEvery === 0 || rec.step === lc.steps) await saveCheckpoint(this, rec.step);
  }

  /** Add a record to the history and metrics.jsonl, and report it. */
  appendRecord(rec: StepRecord, total: number): void {
    this.history.push(rec);
    appendFileSync(this.metricsFile, `${JSON.stringify(rec)}\n`);
    this.opts.onStep?.(rec, total);
  }

  /** The step the run had reached (for error reports). */
  lastStep(): number {
    return this.history.length > 0 ? this.history[this.history.length - 1]!.step : this.step;
  }

  result(): RftRunResult {
    const finalAccuracy = [...this.history].reverse().find((h) => typeof h.accuracy === 'number')?.accuracy;
    const initialEval = initialEvaluation(this.counters);
    return {
      runId: this.opts.runId,
      runDir: this.opts.runDir,
      steps: this.history.length > 0 ? this.history[this.history.length - 1]!.step : 0,
      resumedFrom: this.resumedFrom,
      history: this.history,
      ...(this.initialAccuracy !== undefined ? { initialAccuracy: this.initialAccuracy } : {}),
      ...(finalAccuracy !== undefined ? { finalAccuracy } : {}),
      ...(Object.keys(initialEval).length > 0 ? { initialEvaluation: initialEval } : {}),
      rolloutExamples: this.examples.all(),
      counters: this.counters,
      durationMs: performance.now() - this.startedAt,
    };
  }
}
