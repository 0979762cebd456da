import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { DataError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { LandedMeasures } from '../lifecycle/pipeline/report/collector.ts';
import { recordChunkInputs, type StreamContext } from '../lifecycle/pipeline/task-pipeline-stream.ts';
import { addStepCounts, countReason as count, type StepMetrics } from '../operators/step-metrics.ts';
import { ExactDedupIndex } from '../operators/task/exact-dedup-index.ts';
import { prepareExactKey } from '../operators/task/exact-dedup-prepared.ts';
import { readText, type TextField } from '../operators/task/text-fields.ts';
import type { RowRange } from './arrow-take.ts';
import type { ShardBatch, ShardResult } from './pipeline-job.ts';
import {
  type DecodedShard,
  decodeShardFrame,
  ShardFrameError,
  type ShardRowMeasures,
} from './shard-frame.ts';
import { decodeShardRows, idsOf, isAside, keptRowsOf } from './shard-rows.ts';

/**
 * Landing a shard's result in the coordinator, batch by batch, exactly as the in-process loop lands
 * a batch (task-pipeline-stream.ts): read and map rejections, then the row-wise steps' rejections,
 * then the rest of the chain, then the writer. Two ways:
 * - rows as JSON (`landJsonBatch`): decoded here and run through the rest of the chain, any chain;
 * - rows encoded by the worker (`EncodedShardLanding`): the rest of the chain is exact_dedup alone,
 *   run here on the ids and key hashes of the worker's frame; kept rows go to the writer as the
 *   worker's Arrow.
 */

/**
 * Record a batch's read and map rejections and counts as the in-process run records a chunk's
 * (`recordChunkInputs`), then its warnings and row-wise steps' rejections (both ways). Returns its
 * input errors.
 */
function landInputRejections(c: StreamContext, b: ShardBatch): number {
  const inputErrors = recordChunkInputs(c, b);
  for (const w of b.warnings) c.warn(`${w.step}: ${w.message}`);
  for (const r of b.rejected) c.rejectTask(r.step, r.row as unknown as Task, r.reason);
  return inputErrors;
}

/** Land one batch whose rows came as JSON: decode them, run the rest of the chain here, land. Returns its input errors. */
export async function landJsonBatch(
  c: StreamContext,
  file: string,
  b: ShardBatch,
  rowsRead: number,
): Promise<number> {
  const inputErrors = landInputRejections(c, b);
  const tasks = JSON.parse(b.tasksJson) as Task[];
  if (!Array.isArray(tasks) || tasks.length !== b.tasks)
    throw new Error(`a shard batch's rows do not match their count (${b.tasks})`);
  if (b.exact && b.exact.keys.length === tasks.length) {
    const field = b.exact.field as TextField;
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      prepareExactKey(t, b.exact.params, readText(t, field), b.exact.keys[i]!, b.exact.checks[i]!);
    }
  }
  const out = await c.graph.process(tasks);
  for (const r of out.rejected) c.rejectTask(r.step, r.row, r.reason);
  await c.land(out.rows);
  c.afterBatch(file, rowsRead);
  return inputErrors;
}

/**
 * A shard's frame from Redis, checked against what its job's result says it holds. Anything that
 * does not fit fails the run with one line naming the shard and the worker (`where`).
 */
export async function fetchShardFrame(
  redis: Redis,
  frame: NonNullable<ShardResult['frame']>,
  where: string,
): Promise<DecodedShard> {
  const bytes = await redis.getBuffer(frame.key);
  if (!bytes)
    throw new DataError({ message: `${where}: its encoded rows are missing from Redis (${frame.key})` });
  try {
    return decodeShardFrame(bytes, frame);
  } catch (err) {
    if (!(err instanceof ShardFrameError)) throw err;
    throw new DataError({
      message: `${where}: its encoded rows cannot be landed: ${err.message} (run the same winnow version on every machine)`,
    });
  }
}

/**
 * The rest of the chain when it is exact_dedup alone (checking ids): the global, ordered key set of
 * every shard landed so far, over the ids in the workers' rows and the key hashes beside them, with
 * the same decisions, reasons and counts as the operator (src/operators/task/exact-dedup.ts). Kept
 * rows land as the worker encoded them; only the dropped rows are decoded (their payloads go to the
 * rejected table), a batch's at once.
 */
export class EncodedShardLanding {
  private readonly seen = new ExactDedupIndex(true);
  private readonly metrics: StepMetrics;
  /**
   * The shard being landed: its kept rows as runs [start, end) of consecutive rows, flat
   * (start, end, start, end…): extending a run allocates nothing, where a pair per kept row was
   * a million short-lived arrays at 1M rows.
   */
  private kept: number[] = [];
  private keptCount = 0;
  private readonly measures: KeptMeasures | null;

  /**
   * `step`: the exact_dedup step's counts as the graph names it (its totals start at zero);
   * `withMeasures`: the run writes a report (workers then measure each row).
   */
  constructor(step: StepMetrics, withMeasures: boolean) {
    this.metrics = { ...step, rowsIn: 0, rowsOut: 0, dropped: 0, ms: 0, reasons: {}, extra: {} };
    this.measures = withMeasures ? new KeptMeasures() : null;
  }

  /** The exact_dedup step's counts so far (the run's report lists them in the graph's place). */
  steps(): StepMetrics[] {
    return [this.metrics];
  }

  /** Room for this many kept rows in the key set without rebuilding it (a hint). */
  reserve(rows: number): void {
    this.seen.reserve(rows);
  }

  /**
   * Land batch `b` of a shard whose rows are `shard.rows[from, from + b.tasks)`: its rejections now,
   * its kept rows with the shard's others (`finishShard`). Returns its input errors.
   */
  land(
    c: StreamContext,
    at: { file: string; shard: DecodedShard; from: number; rowsRead: number },
    b: ShardBatch,
  ): number {
    const inputErrors = landInputRejections(c, b);
    const { side } = at.shard;
    // A batch's ids at a time: they die young instead of living through the shard's landing.
    const ids = idsOf(at.shard, at.from, at.from + b.tasks);
    const exact = side.exact!;
    const t0 = performance.now();
    const drops: number[] = [];
    const reasons: string[] = [];
    let byId = 0;
    for (let i = at.from; i < at.from + b.tasks; i++) {
      const id = ids[i - at.from]!;
      let reason: string | null = null;
      if (this.seen.findId(id) >= 0) {
        reason = `duplicate id ${id}`;
        byId++;
      } else {
        const first = this.seen.findText(exact.keys[i]!, exact.checks[i]!);
        if (first >= 0) reason = `duplicate of ${this.seen.idAt(first)}`;
      }
      if (reason === null) {
        this.seen.add(id, exact.keys[i]!, exact.checks[i]!);
        this.keep(i);
      } else {
        drops.push(i);
        reasons.push(reason);
      }
    }
    this.account(b.tasks, drops.length, byId, reasons, performance.now() - t0);
    if (drops.length > 0) this.reject(c, at, drops, reasons, ids);
    c.afterBatch(at.file, at.rowsRead);
    return inputErrors;
  }

  /**
   * The rejected records of a batch's drops, in order: a row the worker set aside has its record in
   * the frame already; the others (repeats of earlier shards' rows) are decoded here.
   */
  private reject(
    c: StreamContext,
    at: { shard: DecodedShard; from: number },
    drops: readonly number[],
    reasons: readonly string[],
    ids: readonly string[],
  ): void {
    const { shard } = at;
    const decoded = decodeShardRows(
      shard,
      drops.filter((i) => !isAside(shard, i)),
    );
    const step = this.metrics.step;
    let d = 0;
    for (let k = 0; k < drops.length; k++) {
      const i = drops[k]!;
      if (!isAside(shard, i)) {
        c.rejectTask(step, decoded[d++]!, reasons[k]!);
        continue;
      }
      const a = i - shard.keptBefore[i]!;
      const { file, row, payload } = shard.asideRecords;
      const rowId = ids[i - at.from]!;
      c.reject({ step, reason: reasons[k]!, file: file[a]!, row: row[a]!, rowId, payload: payload[a]! });
    }
  }

  /**
   * Hand the shard's kept rows to the writer at once, so a commit (output.commitRows) never holds
   * part of a shard: each LanceDB commit holds whole shards, in shard order.
   */
  async finishShard(
    landEncoded: NonNullable<StreamContext['landEncoded']>,
    shard: DecodedShard,
    tasksets: readonly string[] | null,
  ): Promise<void> {
    const kept: RowRange[] = [];
    for (let k = 0; k < this.kept.length; k += 2) kept.push([this.kept[k]!, this.kept[k + 1]!]);
    const count = this.keptCount;
    this.kept = [];
    this.keptCount = 0;
    if (count === 0) return;
    // Record batches the worker's dedup got right go on as their IPC bytes (shard-rows.ts).
    const rows = keptRowsOf(shard, kept);
    const measured =
      this.measures && shard.side.measures && tasksets
        ? this.measures.of(shard.side.measures, tasksets, kept, count)
        : null;
    await landEncoded(rows, measured, measured ? measured.chars.map((_, k) => k) : []);
  }

  /** Row `i` of the shard is kept: extend the last run or start one. */
  private keep(i: number): void {
    const n = this.kept.length;
    if (n > 0 && this.kept[n - 1] === i) this.kept[n - 1] = i + 1;
    else this.kept.push(i, i + 1);
    this.keptCount++;
  }

  /** The graph's accounting for the step (operators/graph.ts `account`); a batch with no rows is not run. */
  private account(
    rowsIn: number,
    dropped: number,
    byId: number,
    reasons: readonly string[],
    ms: number,
  ): void {
    if (rowsIn === 0) return;
    addStepCounts(this.metrics, {
      ...this.metrics,
      rowsIn,
      rowsOut: rowsIn - dropped,
      dropped: 0,
      reasons: {},
      warnings: 0,
      ms,
      extra: { duplicate_ids: byId, duplicate_texts: dropped - byId },
    });
    for (const r of reasons) count(this.metrics, r);
  }
}

/** The report measures of a shard's kept rows, in the shape the run's report collector takes. */
class KeptMeasures {
  of(
    m: ShardRowMeasures,
    names: readonly string[],
    kept: readonly RowRange[],
    count: number,
  ): LandedMeasures {
    const out: LandedMeasures = {
      chars: new Array(count),
      words: new Array(count),
      difficulty: new Array(count),
      taskset: new Array(count),
      tasksets: [...names],
    };
    let k = 0;
    for (const [start, end] of kept)
      for (let i = start; i < end; i++, k++) {
        out.chars[k] = m.chars[i]!;
        out.words[k] = m.words[i]!;
        const d = m.difficulty[i]!;
        out.difficulty[k] = Number.isFinite(d) ? d : null;
        out.taskset[k] = m.taskset[i]!;
      }
    return out;
  }
}
