import type { Task } from '../../../core/task.ts';
import { taskText } from '../../../core/task.ts';
import { ReasonClasses } from '../../../operators/reason-classes.ts';
import { type LandedMeasures, textLength } from '../../../operators/task/landed-measures.ts';
import { keptProfile } from '../../../operators/task/text-profile.ts';
import {
  type HistogramSummary,
  LengthHistogram,
  ScoreHistogram,
  type ScoreHistogramSummary,
} from './histogram.ts';

/** One rejected row as the pipeline records it (the shape of `RejectedInput`, minus the run id). */
export interface RejectedRowInput {
  step: string;
  reason: string;
  rowId?: string;
  file?: string;
  row?: number;
  payload?: string;
}

/** A concrete rejected row shown beside its reason class. */
export interface RejectionExample {
  /** The full reason (capped at `MAX_REASON_CHARS`). */
  reason: string;
  file: string;
  /** 1-based line or 0-based row index as the reader numbered it; -1 when unknown. */
  row: number;
  rowId: string;
  /** The row's head (at most `MAX_PAYLOAD_CHARS`). */
  payload: string;
}

export interface ReasonGroup {
  /** `reasonClass` of the reasons in this group (ids and numbers blanked), or `OTHER_REASONS`. */
  reason: string;
  count: number;
  examples: RejectionExample[];
}

export interface StepRejections {
  step: string;
  count: number;
  /** Most frequent first; ties keep the order the reasons were first seen. */
  reasons: ReasonGroup[];
}

export interface TaskReportSummary {
  /** Tasks landed (fed to `landed`). */
  tasks: number;
  promptChars: HistogramSummary;
  promptWords: HistogramSummary;
  /** `features.difficulty` of the tasks that have a finite one. */
  difficulty: ScoreHistogramSummary;
  /** Landed tasks without a numeric difficulty. */
  withoutDifficulty: number;
  /** Landed tasks per taskset, most first (at most `MAX_TASKSETS`, the rest under `OTHER_TASKSETS`). */
  tasksets: Array<{ taskset: string; count: number }>;
  rejected: number;
  /** Per step, in the order steps first rejected a row. */
  steps: StepRejections[];
}

export const MAX_EXAMPLES = 3;
export const MAX_PAYLOAD_CHARS = 300;
export const MAX_REASON_CHARS = 1000;
/** Reason classes kept apart per step; reasons that embed unique text would otherwise grow without bound. */
export const MAX_REASON_GROUPS = 50;
export const OTHER_REASONS = '(other reasons)';
export const MAX_TASKSETS = 200;
export const OTHER_TASKSETS = '(other tasksets)';

// Moved down to operators/ (pipeline workers measure the rows they encode); re-exported for callers here.
export { type LandedMeasures, measureLanded, textLength } from '../../../operators/task/landed-measures.ts';

const cap = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}… [${s.length - n} more chars]`);

interface StepState {
  count: number;
  groups: Map<string, ReasonGroup>;
}

/**
 * What a task pipeline's HTML report needs, gathered while the run streams: prompt length and
 * difficulty histograms of landed tasks, taskset counts, and per step the rejection reasons
 * grouped by class with a few concrete rows each. Memory is bounded whatever the row count: fixed
 * histogram bins, at most `MAX_REASON_GROUPS` groups per step and `MAX_EXAMPLES` capped examples
 * per group, at most `MAX_TASKSETS` tasksets.
 */
export class TaskReportCollector {
  private tasks = 0;
  private readonly chars = new LengthHistogram();
  private readonly words = new LengthHistogram();
  private readonly difficulty = new ScoreHistogram();
  private withoutDifficulty = 0;
  private readonly tasksets = new Map<string, number>();
  private rejectedRows = 0;
  private readonly steps = new Map<string, StepState>();
  private readonly reasonClasses = new ReasonClasses();

  /** Tasks written to the table (after dedup on id), in any batch size. */
  landed(tasks: readonly Task[]): void {
    for (const task of tasks) {
      const text = taskText(task);
      // A cleaning chain has usually profiled this text already (one scan fewer per landed row).
      const kept = keptProfile(task, text);
      const { chars, words } = kept ? { chars: text.length, words: kept.words } : textLength(text);
      this.count(chars, words, task.features?.difficulty, task.taskset);
    }
  }

  /** Rows `rows` of tasks measured elsewhere (`measureLanded`, in a pipeline worker): the same counts as `landed`. */
  landedMeasured(m: LandedMeasures, rows: Iterable<number>): void {
    for (const i of rows) this.count(m.chars[i]!, m.words[i]!, m.difficulty[i], m.tasksets[m.taskset[i]!]!);
  }

  private count(chars: number, words: number, d: unknown, taskset: string): void {
    this.tasks++;
    this.chars.add(chars);
    this.words.add(words);
    if (typeof d === 'number' && Number.isFinite(d)) this.difficulty.add(d);
    else this.withoutDifficulty++;
    const name = this.tasksets.has(taskset) || this.tasksets.size < MAX_TASKSETS ? taskset : OTHER_TASKSETS;
    this.tasksets.set(name, (this.tasksets.get(name) ?? 0) + 1);
  }

  /** Rows recorded in the rejected table (input errors, operator drops, hook vetoes, duplicate ids). */
  rejected(rows: readonly RejectedRowInput[]): void {
    for (const r of rows) {
      this.rejectedRows++;
      let step = this.steps.get(r.step);
      if (!step) {
        step = { count: 0, groups: new Map() };
        this.steps.set(r.step, step);
      }
      step.count++;
      const cls = this.reasonClasses.of(r.reason);
      const key = step.groups.has(cls) || step.groups.size < MAX_REASON_GROUPS ? cls : OTHER_REASONS;
      let group = step.groups.get(key);
      if (!group) {
        group = { reason: key, count: 0, examples: [] };
        step.groups.set(key, group);
      }
      group.count++;
      if (group.examples.length < MAX_EXAMPLES)
        group.examples.push({
          reason: cap(r.reason, MAX_REASON_CHARS),
          file: r.file ?? '',
          row: r.row ?? -1,
          rowId: r.rowId ?? '',
          payload: cap(r.payload ?? '', MAX_PAYLOAD_CHARS),
        });
    }
  }

  /** A plain, JSON-serialisable snapshot (the collector can keep collecting afterwards). */
  summary(): TaskReportSummary {
    return {
      tasks: this.tasks,
      promptChars: this.chars.summary(),
      promptWords: this.words.summary(),
      difficulty: this.difficulty.summary(),
      withoutDifficulty: this.withoutDifficulty,
      tasksets: [...this.tasksets]
        .map(([taskset, count]) => ({ taskset, count }))
        .sort((a, b) => b.count - a.count),
      rejected: this.rejectedRows,
      steps: [...this.steps].map(([step, s]) => ({
        step,
        count: s.count,
        reasons: [...s.groups.values()]
          .map((g) => ({ ...g, examples: g.examples.map((e) => ({ ...e })) }))
          .sort((a, b) => b.count - a.count),
      })),
    };
  }
}
