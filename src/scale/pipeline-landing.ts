import { performance } from 'node:perf_hooks';
import * as arrow from 'apache-arrow';
import type { Redis } from 'ioredis';
import type { Task } from '../core/task.ts';
import type { LandedMeasures } from '../lifecycle/pipeline/report/collector.ts';
import type { StreamContext } from '../lifecycle/pipeline/task-pipeline-stream.ts';
import { addStepCounts, countReason as count, type StepMetrics } from '../operators/step-metrics.ts';
import { ExactDedupIndex } from '../operators/task/exact-dedup-index.ts';
import { prepareExactKey } from '../operators/task/exact-dedup-prepared.ts';
import { readText, type TextField } from '../operators/task/text-fields.ts';
import { decodeTasks } from '../store/task-table.ts';
import { type RowRange, takeRanges } from './arrow-take.ts';
import type { ShardBatch, ShardResult } from './pipeline-job.ts';

/**
 * Landing a shard's result in the coordinator, batch by batch, exactly as the in-process loop lands
 * a batch (task-pipeline-stream.ts): read and map rejections, then the row-wise steps' rejections,
 * then the rest of the chain, then the writer. Two ways:
 * - rows as JSON (`landJsonBatch`): decoded here and run through the rest of the chain, any chain;
 * - rows encoded by the worker (`EncodedShardLanding`): the rest of the chain is exact_dedup alone,
 *   run here on the worker's ids and key hashes; kept rows go to the writer as the worker's Arrow.
 */

/** Record a batch's read and map rejections and counts (both ways). Returns its input errors. */
function landInputRejections(c: StreamContext, b: ShardBatch): number {
  let inputErrors = 0;
  c.steps.read.rowsIn += b.records + b.readRejected.length;
  c.steps.read.rowsOut += b.records;
  for (const r of b.readRejected) {
    count(c.steps.read, r.reason);
    inputErrors++;
    c.reject(r);
  }
  for (const r of b.mapRejected) {
    count(c.steps.map, r.reason);
    inputErrors++;
    c.reject(r);
  }
  c.steps.map.rowsIn += b.records;
  c.steps.map.rowsOut += b.records - b.mapRejected.length;
  c.steps.map.ms += b.mapMs;
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

/** A shard's encoded rows from Redis: one Arrow table, its batches' rows one after another. */
export async function fetchShardRows(redis: Redis, result: ShardResult): Promise<arrow.Table> {
  const bytes = result.rowsKey ? await redis.getBuffer(result.rowsKey) : null;
  if (!bytes)
    throw new Error(`a shard's encoded rows are missing from Redis (${result.rowsKey ?? 'no key'})`);
  const table = arrow.tableFromIPC(bytes);
  const rows = result.batches.reduce((n, b) => n + b.tasks, 0);
  if (table.numRows !== rows) throw new Error(`a shard's encoded rows do not match their count (${rows})`);
  return table;
}

/**
 * The rest of the chain when it is exact_dedup alone (checking ids): the global, ordered key set of
 * every shard landed so far, over the workers' ids and key hashes, with the same decisions, reasons
 * and counts as the operator (src/operators/task/exact-dedup.ts). Kept rows land as the worker
 * encoded them; only a dropped row is decoded (its payload goes to the rejected table).
 */
export class EncodedShardLanding {
  private readonly seen = new ExactDedupIndex(true);
  private readonly metrics: StepMetrics;
  /** The shard being landed: its kept rows (indices into its encoded rows) and their report measures. */
  private kept: number[] = [];
  private measures: ShardMeasures | null = null;

  /** `step`: the exact_dedup step's counts as the graph names it (its totals start at zero). */
  constructor(step: StepMetrics) {
    this.metrics = { ...step, rowsIn: 0, rowsOut: 0, dropped: 0, ms: 0, reasons: {}, extra: {} };
  }

  /** The exact_dedup step's counts so far (the run's report lists them in the graph's place). */
  steps(): StepMetrics[] {
    return [this.metrics];
  }

  /**
   * Land batch `b` of a shard whose rows are `rows[from, from + b.tasks)`: its rejections now, its kept
   * rows with the shard's others (`finishShard`). Returns its input errors.
   */
  land(
    c: StreamContext,
    at: { file: string; rows: arrow.Table; from: number; rowsRead: number },
    b: ShardBatch,
  ): number {
    const inputErrors = landInputRejections(c, b);
    const enc = b.encoded;
    if (!enc || !b.exact || enc.ids.length !== b.tasks || b.exact.keys.length !== b.tasks)
      throw new Error(`a shard batch's encoded rows do not match their count (${b.tasks})`);
    const t0 = performance.now();
    const kept: number[] = [];
    const drops: Array<{ i: number; reason: string }> = [];
    for (let i = 0; i < b.tasks; i++) {
      const id = enc.ids[i]!;
      const key = b.exact.keys[i]!;
      const check = b.exact.checks[i]!;
      const reason = this.seen.findId(id) >= 0 ? `duplicate id ${id}` : this.duplicateText(key, check);
      if (reason === null) {
        this.seen.add(id, key, check);
        kept.push(i);
      } else drops.push({ i, reason });
    }
    this.account(b.tasks, kept.length, drops, performance.now() - t0);
    for (const d of drops) c.rejectTask(this.metrics.step, rowAt(at.rows, at.from + d.i), d.reason);
    for (const i of kept) this.kept.push(at.from + i);
    if (enc.measures) {
      this.measures ??= new ShardMeasures();
      this.measures.add(enc.measures, kept);
    }
    c.afterBatch(at.file, at.rowsRead);
    return inputErrors;
  }

  /**
   * Hand the shard's kept rows to the writer at once, so a commit (output.commitRows) never holds
   * part of a shard: each LanceDB commit holds whole shards, in shard order.
   */
  async finishShard(
    landEncoded: NonNullable<StreamContext['landEncoded']>,
    rows: arrow.Table,
  ): Promise<void> {
    const kept = this.kept;
    const measures = this.measures?.all ?? null;
    this.kept = [];
    this.measures = null;
    if (kept.length === 0) return;
    await landEncoded(keptRows(rows, 0, kept), measures, measures ? kept.map((_, k) => k) : []);
  }

  private duplicateText(key: number, check: number): string | null {
    const first = this.seen.findText(key, check);
    return first >= 0 ? `duplicate of ${this.seen.idAt(first)}` : null;
  }

  /** The graph's accounting for the step (operators/graph.ts `account`); a batch with no rows is not run. */
  private account(rowsIn: number, rowsOut: number, drops: Array<{ reason: string }>, ms: number): void {
    if (rowsIn === 0) return;
    const byId = drops.filter((d) => d.reason.startsWith('duplicate id ')).length;
    addStepCounts(this.metrics, {
      ...this.metrics,
      rowsIn,
      rowsOut,
      dropped: 0,
      reasons: {},
      warnings: 0,
      ms,
      extra: { duplicate_ids: byId, duplicate_texts: drops.length - byId },
    });
    for (const d of drops) count(this.metrics, d.reason);
  }
}

/** Row `i` of the encoded rows as a task (a dropped row's payload, file and line for the rejected table). */
function rowAt(rows: arrow.Table, i: number): Task {
  return decodeTasks(rows.slice(i, i + 1))[0]!;
}

/** Rows `from + kept[k]` of `rows` as one batch, copied run by run of consecutive rows (drops are few). */
function keptRows(rows: arrow.Table, from: number, kept: readonly number[]): arrow.Table {
  const ranges: RowRange[] = [];
  let start = 0;
  for (let k = 1; k <= kept.length; k++) {
    if (k < kept.length && kept[k] === kept[k - 1]! + 1) continue;
    ranges.push([from + kept[start]!, from + kept[k - 1]! + 1]);
    start = k;
  }
  return takeRanges(rows, ranges);
}

/** The report measures of a shard's kept rows, batch after batch, in one set of columns. */
class ShardMeasures {
  readonly all: LandedMeasures = { chars: [], words: [], difficulty: [], taskset: [], tasksets: [] };
  private readonly sets = new Map<string, number>();

  add(m: LandedMeasures, rows: readonly number[]): void {
    for (const i of rows) {
      const name = m.tasksets[m.taskset[i]!]!;
      let k = this.sets.get(name);
      if (k === undefined) {
        k = this.all.tasksets.length;
        this.sets.set(name, k);
        this.all.tasksets.push(name);
      }
      this.all.chars.push(m.chars[i]!);
      this.all.words.push(m.words[i]!);
      this.all.difficulty.push(m.difficulty[i] ?? null);
      this.all.taskset.push(k);
    }
  }
}
