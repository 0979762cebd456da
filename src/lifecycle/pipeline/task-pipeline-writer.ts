import { performance } from 'node:perf_hooks';
import * as arrow from 'apache-arrow';
import type { Task } from '../../core/task.ts';
import type { StepMetrics } from '../../operators/step-metrics.ts';
import type { RejectedStore } from '../../store/rejected-store.ts';
import type { TaskRowsEncoder } from '../../store/task-encoder.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { Hooks } from '../hooks.ts';
import type { TaskPipelineEvents } from './task-pipeline-types.ts';

interface CommitterOptions {
  store: TaskStore;
  rejectedStore: RejectedStore;
  runId: string;
  appendOnly: boolean;
  commitRows: number;
  writeStep: StepMetrics;
  hooks: Hooks<TaskPipelineEvents>;
}

/**
 * The run's background writer: landed tasks collect until `commitRows`, then one large commit
 * goes to LanceDB (which encodes and writes on its own threads) while the run processes the next
 * batches. At most one commit is in flight; `drain` awaits it before the run reports success.
 */
export class TaskCommitter {
  readonly totals = { inserted: 0, updated: 0, unchanged: 0 };
  private pending = new PendingTasks();
  private inFlight: Promise<void> = Promise.resolve();

  private readonly w: CommitterOptions;

  constructor(w: CommitterOptions) {
    this.w = w;
  }

  /** Queue one landed task (encoded at once where the table allows: it need not stay alive). */
  push(task: Task): void {
    if (this.pending.encoder === undefined)
      this.pending.encoder = this.w.store.encoder(this.w.runId, Math.min(this.w.commitRows, 1 << 16));
    if (this.pending.encoder) this.pending.encoder.push(task);
    else this.pending.tasks.push(task);
  }

  /** Queue rows already encoded in the table's typed layout (queued ingest: a pipeline worker encoded them). */
  pushEncoded(rows: arrow.Table): void {
    if (rows.numRows === 0) return;
    this.pending.encoded.push(rows);
    this.pending.encodedRows += rows.numRows;
  }

  /** Start a commit when `commitRows` tasks are queued (waits only for the previous commit). */
  async maybeCommit(): Promise<void> {
    if (this.pending.length >= this.w.commitRows) await this.commit();
  }

  /** Commit what is queued (and the rejected rows); with `wait`, also wait for it to land. */
  async commit(wait = false): Promise<void> {
    await this.inFlight;
    if (this.pending.length > 0 || this.w.rejectedStore.pendingCount > 0) {
      const batch = this.pending;
      this.pending = new PendingTasks();
      this.inFlight = this.commitNow(batch);
    }
    if (wait) await this.inFlight;
  }

  /** Drop what is queued (a failed run) and wait for the commit in flight. */
  async abandon(): Promise<void> {
    this.pending = new PendingTasks();
    await this.inFlight;
  }

  /** Wait for the commit in flight, ignoring its failure (the run is failing already). */
  settle(): Promise<void> {
    return this.inFlight.catch(() => undefined);
  }

  private async commitNow(batch: PendingTasks): Promise<void> {
    const t = performance.now();
    const opts = { append: this.w.appendOnly };
    const res =
      batch.encoded.length > 0
        ? await this.w.store.writeRows(batch.rowsTable(), opts)
        : batch.encoder
          ? await this.w.store.writeEncoded(batch.encoder, opts)
          : await this.w.store.write(batch.tasks, this.w.runId, opts);
    this.totals.inserted += res.inserted;
    this.totals.updated += res.updated;
    this.totals.unchanged += res.unchanged;
    await this.w.rejectedStore.flush();
    this.w.writeStep.ms += performance.now() - t;
    await this.w.hooks.emit('afterTaskWrite', {
      runId: this.w.runId,
      written: batch.length,
      inserted: res.inserted,
      updated: res.updated,
      version: res.version,
    });
  }
}

/** One commit's tasks: encoded as they came (the typed layout), or kept as tasks (an older table's). */
class PendingTasks {
  /** Set at the first push: null when the table needs the tasks themselves. */
  encoder: TaskRowsEncoder | null | undefined = undefined;
  readonly tasks: Task[] = [];
  /** Rows encoded elsewhere (`pushEncoded`), landed after `tasks`' (a queued run lands only these). */
  readonly encoded: arrow.Table[] = [];
  encodedRows = 0;

  get length(): number {
    return (this.encoder ? this.encoder.length : this.tasks.length) + this.encodedRows;
  }

  /** Every row of this commit as one table: pushed tasks (encoded now), then the encoded rows. */
  rowsTable(): arrow.Table {
    // Encoded rows are only handed over for a table with the typed layout, where tasks are encoded too.
    if (this.tasks.length > 0) throw new Error('encoded rows and unencoded tasks in one commit');
    const first = this.encoder ? [this.encoder.finish(Date.now())] : [];
    return new arrow.Table([...first, ...this.encoded].flatMap((t) => t.batches));
  }
}
