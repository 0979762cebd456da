import type { Task } from '../core/task.ts';
import { measureLanded } from '../lifecycle/pipeline/report/collector.ts';
import type { ExactDedupKeyer } from '../operators/task/exact-dedup-prepared.ts';
import { TaskRowsEncoder } from '../store/task-encoder.ts';
import type { ShardResult } from './pipeline-job.ts';
import { encodeShardFrame, type ShardRowMeasures } from './shard-frame.ts';

/**
 * A worker's shard frame, built batch by batch: the cleaned rows encoded as the single writer would
 * encode them (content hashes included), exact_dedup's key hashes, and, for a run that writes a
 * report, each row's measures (taskset names numbered across the shard).
 */
export class ShardFrameBuilder {
  private readonly encoder: TaskRowsEncoder;
  private readonly keyer: ExactDedupKeyer | null;
  private readonly keys: Float64Array[] = [];
  private readonly checks: Uint32Array[] = [];
  private readonly measures: MeasureParts | null;
  private rows = 0;

  constructor(runId: string, keyer: ExactDedupKeyer | null, measureRows: boolean) {
    this.encoder = new TaskRowsEncoder(runId, 1 << 12);
    this.keyer = keyer;
    this.measures = measureRows ? new MeasureParts() : null;
  }

  add(tasks: readonly Task[]): void {
    for (const task of tasks) this.encoder.push(task);
    if (this.keyer) {
      const { keys, checks } = this.keyer.hashAll(tasks);
      this.keys.push(keys);
      this.checks.push(checks);
    }
    this.measures?.add(tasks);
    this.rows += tasks.length;
  }

  /** The frame's bytes, and what the job's result says of it (`key`: where it is stored). */
  finish(key: string): { bytes: Buffer; frame: NonNullable<ShardResult['frame']> } {
    const rows = this.encoder.finish(Date.now());
    const exact = this.keyer
      ? { keys: concat(this.keys, Float64Array), checks: concat(this.checks, Uint32Array) }
      : null;
    const measures = this.measures?.finish() ?? null;
    return {
      bytes: encodeShardFrame(rows, { exact, measures }),
      frame: { key, rows: this.rows, exact: exact !== null, tasksets: this.measures?.names ?? null },
    };
  }
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
