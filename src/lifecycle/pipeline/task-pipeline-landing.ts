import type * as arrow from 'apache-arrow';
import { type RejectedInput, taskRejection } from '../../core/rejected.ts';
import type { Task } from '../../core/task.ts';
import { countReason as count, emptyMetrics, type StepMetrics } from '../../operators/step-metrics.ts';
import type { RejectedStore } from '../../store/rejected-store.ts';
import type { Hooks } from '../hooks.ts';
import type { LandedMeasures, TaskReportCollector } from './report/collector.ts';
import type { LandedIds } from './task-pipeline-ids.ts';
import type { TaskPipelineEvents } from './task-pipeline-types.ts';
import type { TaskCommitter } from './task-pipeline-writer.ts';

interface LandingOptions {
  runId: string;
  rejectedStore: RejectedStore;
  reportData: TaskReportCollector;
  hooks: Hooks<TaskPipelineEvents>;
  /** Null when the chain's last step, exact_dedup, has already dropped every repeated id. */
  seenIds: LandedIds | null;
}

/**
 * Where a run's rows end: rejected ones into the rejected table and the report, landed ones
 * through the `afterTaskOps` hooks and the id check into the writer. Counts the read/map/hook/write
 * steps' totals for the run report.
 */
export class TaskLanding {
  readonly readStep = emptyMetrics('read', 'read', 'read');
  readonly mapStep = emptyMetrics('map', 'map', 'map');
  readonly hookStep = emptyMetrics('hooks', 'hooks', 'hook');
  readonly writeStep = emptyMetrics('write', 'write', 'write');
  rejectedCount = 0;
  tasksOut = 0;
  /** Set once the writer exists (it takes `writeStep`). */
  writer: TaskCommitter | undefined;
  private readonly o: LandingOptions;

  constructor(o: LandingOptions) {
    this.o = o;
  }

  readonly reject = (r: RejectedInput): void => {
    this.o.reportData.rejected([r]);
    this.o.rejectedStore.add([{ runId: this.o.runId, ...r }]);
    this.rejectedCount++;
  };

  readonly rejectTask = (step: string, task: Task, reason: string): void =>
    this.reject(taskRejection(step, task, reason));

  /** A batch's final rows, in order: hooks, the id check, then the writer. */
  readonly land = async (tasks: Task[]): Promise<void> => {
    const { hookStep, writeStep } = this;
    const after = await this.o.hooks.emit('afterTaskOps', { runId: this.o.runId, rows: tasks });
    for (const r of after.rejected) {
      count(hookStep, r.reason);
      this.rejectTask(r.step, r.row as Task, r.reason);
    }
    hookStep.rowsIn += tasks.length;
    hookStep.rowsOut += after.payload.rows.length;
    writeStep.rowsIn += after.payload.rows.length;
    const writer = this.writer!;
    for (const task of after.payload.rows) {
      const repeat = this.o.seenIds?.add(task);
      if (repeat !== undefined) {
        this.rejectRepeat(task, repeat.first);
        continue;
      }
      this.o.reportData.landed([task]);
      writer.push(task);
      this.tasksOut++;
      writeStep.rowsOut++;
    }
    await writer.maybeCommit();
  };

  /** The writer's drop of a row whose id was landed before (from `first`; null: a generated row). */
  private rejectRepeat(task: Task, first: Task['source'] | null): void {
    const reason = `duplicate id ${task.id} (first written from ${first ? `${first.file}:${first.row}` : 'a generated row'})`;
    count(this.writeStep, reason);
    this.rejectTask('write', task, reason);
  }

  /** Whether the writer checks ids itself (the chain's last step does not drop repeated ids). */
  get checksIds(): boolean {
    return this.o.seenIds !== null;
  }

  /**
   * `land`'s id check for one encoded row about to land, before `landEncoded` (which counts only
   * the rows it is given): false when its id was landed before, the row then recorded and counted
   * as `land` does (`task` builds it only then). True without the check (`checksIds` false).
   */
  readonly admitEncoded = (id: string, source: Task['source'], task: () => Task): boolean => {
    const repeat = this.o.seenIds?.addId(id, source);
    if (repeat === undefined) return true;
    this.hookStep.rowsIn++;
    this.hookStep.rowsOut++;
    this.writeStep.rowsIn++;
    this.rejectRepeat(task(), repeat.first);
    return false;
  };

  /** The same accounting as `land` for rows a pipeline worker encoded (no hook can see them: none is registered). */
  readonly landEncoded = async (
    rows: arrow.Table,
    measures: LandedMeasures | null,
    kept: readonly number[],
  ): Promise<void> => {
    const { hookStep, writeStep } = this;
    hookStep.rowsIn += rows.numRows;
    hookStep.rowsOut += rows.numRows;
    writeStep.rowsIn += rows.numRows;
    writeStep.rowsOut += rows.numRows;
    this.tasksOut += rows.numRows;
    // Null only for a run that writes no report (output.report: false), which reads none of it.
    if (measures) this.o.reportData.landedMeasured(measures, kept);
    const writer = this.writer!;
    writer.pushEncoded(rows);
    await writer.maybeCommit();
  };

  /** The run report's steps, the operators' in between. */
  steps(operatorSteps: StepMetrics[], withHooks: boolean): StepMetrics[] {
    return [
      this.readStep,
      this.mapStep,
      ...operatorSteps,
      ...(withHooks ? [this.hookStep] : []),
      this.writeStep,
    ];
  }
}
