import * as arrow from 'apache-arrow';
import type { Task } from '../core/task.ts';
import { measureLanded } from '../lifecycle/pipeline/report/collector.ts';
import { ExactDedupIndex } from '../operators/task/exact-dedup-index.ts';
import type { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import { TaskRowsEncoder } from '../store/task-encoder.ts';
import type { ShardResult } from './pipeline-job.ts';
import { encodeShardFrame, type ShardRowMeasures } from './shard-frame.ts';

/**
 * Rows of the first record batch of a frame's kept section; each next batch is twice as large, up to
 * `FRAME_BATCH_MAX_ROWS`. The coordinator commits a batch as its bytes when it drops none of its
 * rows, and re-encodes it otherwise. What it drops there are repeats of rows of earlier shards, and
 * where the input's repeats are near each other (a crawl, a concatenation of sources) those sit at a
 * shard's start: small batches there re-encode few rows, large ones after keep the batch count low
 * (LanceDB spends more on a commit of many small batches: ~+0.1 CPU s per 400,000 rows at 2,048 rows
 * a batch against one batch a commit, measured in docs/scale-out.md).
 */
export const FRAME_BATCH_ROWS = 1024;
export const FRAME_BATCH_MAX_ROWS = 16_384;

/**
 * A worker's shard frame, built batch by batch: the cleaned rows encoded as the single writer would
 * encode them (content hashes included), exact_dedup's key hashes, and, for a run that writes a
 * report, each row's measures (taskset names numbered across the shard). With exact_dedup, the
 * worker runs it over its own shard as the coordinator will over the run (same index, same order)
 * and encodes the rows it would drop into a second section, so that the first section is, for
 * almost every shard, exactly what the coordinator commits (shard-frame.ts).
 */
export class ShardFrameBuilder {
  private readonly runId: string;
  private readonly kept: TaskRowsEncoder[] = [];
  private readonly aside: TaskRowsEncoder;
  private readonly keyer: ExactDedupKeyer | null;
  private readonly seen = new ExactDedupIndex(true);
  private readonly keys: Float64Array[] = [];
  private readonly checks: Uint32Array[] = [];
  private readonly asideMarks: number[] = [];
  private readonly measures: MeasureParts | null;
  private rows = 0;

  constructor(runId: string, keyer: ExactDedupKeyer | null, measureRows: boolean) {
    this.runId = runId;
    this.aside = new TaskRowsEncoder(runId, 64);
    this.keyer = keyer;
    this.measures = measureRows ? new MeasureParts() : null;
  }

  add(tasks: readonly Task[]): void {
    if (this.keyer) {
      const { keys, checks } = this.keyer.hashAll(tasks);
      this.keys.push(keys);
      this.checks.push(checks);
      for (let i = 0; i < tasks.length; i++) {
        const task = tasks[i]!;
        // exact_dedup's decision within the shard (operators/task/exact-dedup.ts): id, then text.
        const repeat = this.seen.findId(task.id) >= 0 || this.seen.findText(keys[i]!, checks[i]!) >= 0;
        if (!repeat) this.seen.add(task.id, keys[i]!, checks[i]!);
        this.asideMarks.push(repeat ? 1 : 0);
        if (repeat) this.aside.push(task);
        else this.keep(task);
      }
    } else for (const task of tasks) this.keep(task);
    this.measures?.add(tasks);
    this.rows += tasks.length;
  }

  /** The frame's bytes, and what the job's result says of it (`key`: where it is stored). */
  finish(key: string): { bytes: Buffer; frame: NonNullable<ShardResult['frame']> } {
    const now = Date.now();
    const kept = this.kept.map((e) => e.finish(now).batches);
    const rows =
      kept.length > 0 ? new arrow.Table(kept.flat()) : new TaskRowsEncoder(this.runId, 1).finish(now);
    const exact = this.keyer
      ? {
          keys: concat(this.keys, Float64Array),
          checks: concat(this.checks, Uint32Array),
          aside: Uint8Array.from(this.asideMarks),
        }
      : null;
    const measures = this.measures?.finish() ?? null;
    return {
      bytes: encodeShardFrame(rows, this.aside.finish(now), { exact, measures }),
      frame: { key, rows: this.rows, exact: exact !== null, tasksets: this.measures?.names ?? null },
    };
  }

  /** A row of the kept section: a new record batch when the last is full (`FRAME_BATCH_ROWS`). */
  private keep(task: Task): void {
    let last = this.kept.at(-1);
    if (last === undefined || last.length >= batchRowsAt(this.kept.length - 1)) {
      last = new TaskRowsEncoder(this.runId, batchRowsAt(this.kept.length));
      this.kept.push(last);
    }
    last.push(task);
  }
}

/** Rows of the kept section's batch `k` (0-based). */
function batchRowsAt(k: number): number {
  return Math.min(FRAME_BATCH_MAX_ROWS, FRAME_BATCH_ROWS * 2 ** Math.min(k, 20));
}

/** Measures of every row so far, as typed arrays; taskset indices into `names`. */
class MeasureParts {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly chars: number[] = [];
  private readonly words: number[] = [];
  private readonly difficulty: number[] = [];
  private readonly taskset: number[] = [];

  add(tasks: readonly Task[]): void {
    const m = measureLanded(tasks);
    const local = m.tasksets.map((name) => {
      let k = this.index.get(name);
      if (k === undefined) {
        k = this.names.length;
        this.index.set(name, k);
        this.names.push(name);
      }
      return k;
    });
    for (let i = 0; i < tasks.length; i++) {
      this.chars.push(m.chars[i]!);
      this.words.push(m.words[i]!);
      this.difficulty.push(m.difficulty[i] ?? Number.NaN);
      this.taskset.push(local[m.taskset[i]!]!);
    }
  }

  finish(): ShardRowMeasures {
    return {
      chars: Int32Array.from(this.chars),
      words: Int32Array.from(this.words),
      difficulty: Float64Array.from(this.difficulty),
      taskset: Int32Array.from(this.taskset),
    };
  }
}

function concat<T extends Float64Array | Uint32Array>(parts: readonly T[], Type: new (n: number) => T): T {
  const out = new Type(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
