import type { Task } from '../core/task.ts';
import type { MapRejection } from '../io/map-records.ts';
import type { ReadRejection } from '../io/raw-record.ts';
import type { StepRejection } from '../operators/graph.ts';
import type { ChunkJob, ChunkRows } from './jsonl-chunk-rows.ts';

/** A batch as the reader would have made it (`batchSize` records), after mapping and the row-wise steps. */
export interface LandingBatch<R = Task> {
  file: string;
  readRejected: ReadRejection[];
  /** Records the reader yielded in this batch. */
  records: number;
  mapRejected: MapRejection[];
  mapMs: number;
  warnings: Array<{ step: string; message: string }>;
  rejected: StepRejection<Task>[];
  tasks: R[];
}

/** How a chunked read gets its chunks' rows and lands a batch of them (as tasks, or as encoded rows). */
export interface ChunkWay<R> {
  /** `here`: run the chunk on the main thread even though a worker could take it (a way may ignore it). */
  run(
    job: ChunkJob,
    here?: boolean,
  ): Promise<{ rows(lineOffset: number): ChunkRows<R>; warnings: LandingBatch['warnings'] }>;
  /** The main thread may take a chunk itself now (`run(job, true)` would run it here). */
  canHelp?(): boolean;
  /** Land a batch whose read and map rejections are recorded already. */
  land(b: LandingBatch<R>, rowsRead: number): Promise<void>;
}

function emptyBatch<R>(file: string): LandingBatch<R> {
  return {
    file,
    readRejected: [],
    records: 0,
    mapRejected: [],
    mapMs: 0,
    warnings: [],
    rejected: [],
    tasks: [],
  };
}

/**
 * Cuts a file's chunks (in order) back into the batches the JSONL reader yields: `batchSize`
 * records each, a read rejection riding with the batch open when its line was read (the reader's
 * BatchBuilder), the last batch smaller. Every later stage then sees exactly the batches, rows,
 * drops and drop order a run without chunks sees: the steps after the row-wise ones, commits,
 * progress and the rejected table's order do not depend on how the file was cut.
 */
export class ChunkBatcher<R = Task> {
  private readonly file: string;
  private readonly batchSize: number;
  /** Records and lines of the chunks added so far. */
  private recordsSoFar = 0;
  private linesSoFar = 0;
  private open: LandingBatch<R>;
  /** Rank of each row-wise step: a batch's drops are reported step by step, as its graph reports them. */
  private readonly rank: Map<string, number>;
  /** The open batch holds drops from more than one chunk (they need putting in step order). */
  private mixed = false;

  constructor(file: string, batchSize: number, steps: readonly string[]) {
    this.file = file;
    this.batchSize = batchSize;
    this.open = emptyBatch<R>(file);
    this.rank = new Map(steps.map((s, i) => [s, i]));
  }

  /** Lines of the file in the chunks added so far: the next chunk's line offset. */
  get lines(): number {
    return this.linesSoFar;
  }

  /** Add the next chunk (numbered in the file); returns the batches it completed, in order. */
  add(rows: ChunkRows<R>, warnings: LandingBatch['warnings']): LandingBatch<R>[] {
    const base = this.recordsSoFar;
    const size = this.batchSize;
    const first = Math.floor(base / size);
    const last = Math.floor((base + rows.records) / size);
    const buckets = [this.open];
    for (let b = first + 1; b <= last; b++) buckets.push(emptyBatch<R>(this.file));
    const at = (ordinal: number) => buckets[Math.floor((base + ordinal) / size) - first]!;
    for (let b = first; b <= last; b++) {
      const from = Math.max(b * size, base);
      const to = Math.min((b + 1) * size, base + rows.records);
      if (to > from) buckets[b - first]!.records += to - from;
    }
    for (const [i, r] of rows.readRejected.entries()) at(rows.readBefore[i]!).readRejected.push(r);
    for (const [i, r] of rows.mapRejected.entries()) at(rows.mapOrdinal[i]!).mapRejected.push(r);
    if (rows.rejected.length > 0 && this.open.rejected.length > 0) this.mixed = true;
    for (const [i, r] of rows.rejected.entries()) at(rows.rejectedOrdinal[i]!).rejected.push(r);
    if (buckets.length === 1) {
      const tasks = buckets[0]!.tasks;
      for (const t of rows.tasks) tasks.push(t);
    } else for (let i = 0; i < rows.tasks.length; i++) at(rows.taskOrdinal[i]!).tasks.push(rows.tasks[i]!);
    buckets[0]!.mapMs += rows.mapMs;
    buckets[0]!.warnings.push(...warnings);
    this.recordsSoFar += rows.records;
    this.linesSoFar += rows.lines;
    const done = buckets.slice(0, -1);
    if (done.length > 0 && this.mixed) {
      this.inStepOrder(done[0]!);
      this.mixed = false;
    }
    this.open = buckets[buckets.length - 1]!;
    return done;
  }

  /**
   * A batch that spans chunks got each chunk's drops step by step; the graph run on the whole batch
   * reports all of one step's drops (rows in order) before the next step's. A stable sort by step
   * puts them so: within a step, chunk order is row order.
   */
  private inStepOrder(batch: LandingBatch<R>): void {
    const rank = (step: string) => this.rank.get(step) ?? this.rank.size;
    batch.rejected.sort((a, b) => rank(a.step) - rank(b.step));
  }

  /** The file's last batch, if it holds a record or a read rejection (as the reader's). */
  finish(): LandingBatch<R>[] {
    const last = this.open;
    if (this.mixed) this.inStepOrder(last);
    this.mixed = false;
    this.open = emptyBatch<R>(this.file);
    return last.records > 0 || last.readRejected.length > 0 ? [last] : [];
  }
}
