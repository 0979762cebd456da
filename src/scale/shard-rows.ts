import * as arrow from 'apache-arrow';
import type { Task } from '../core/task.ts';
import { decodeTasks } from '../store/task-table.ts';
import { type RowRange, takeRanges } from './arrow-take.ts';
import { type DecodedShard, utf8Values } from './shard-frame.ts';

/**
 * A shard's rows by their index in the shard (input order), over the frame's two sections (the
 * rows the worker's own dedup kept, and those it set aside: shard-frame.ts). Rows of one section
 * keep their input order, so a run of shard rows is a run in each section.
 */

/** Where shard rows `[from, to)` are in each section: `[kept from, kept to)` and `[aside from, aside to)`. */
function sectionsOf(shard: DecodedShard, from: number, to: number): [RowRange, RowRange] {
  const k = shard.keptBefore;
  return [
    [k[from]!, k[to]!],
    [from - k[from]!, to - k[to]!],
  ];
}

/** Whether shard row `i` is in the frame's second section (the worker set it aside). */
export function isAside(shard: DecodedShard, i: number): boolean {
  return shard.keptBefore[i + 1] === shard.keptBefore[i];
}

/** The ids of shard rows `[from, to)`, in input order. */
export function idsOf(shard: DecodedShard, from: number, to: number): string[] {
  const [[ks, ke], [as, ae]] = sectionsOf(shard, from, to);
  const kept = utf8Values(shard.rows.getChild('id')!.slice(ks, ke));
  if (ae === as) return kept;
  const aside = utf8Values(shard.aside.getChild('id')!.slice(as, ae));
  const out = new Array<string>(to - from);
  let k = 0;
  let a = 0;
  for (let i = from; i < to; i++) out[i - from] = isAside(shard, i) ? aside[a++]! : kept[k++]!;
  return out;
}

/** Shard rows `rows` (ascending), decoded as tasks in the same order (the dropped rows' rejected records). */
export function decodeShardRows(shard: DecodedShard, rows: readonly number[]): Task[] {
  const ranges: [RowRange[], RowRange[]] = [[], []];
  for (const i of rows) {
    const side = isAside(shard, i) ? 1 : 0;
    const at = side === 1 ? i - shard.keptBefore[i]! : shard.keptBefore[i]!;
    ranges[side].push([at, at + 1]);
  }
  const kept = ranges[0].length > 0 ? decodeTasks(takeRanges(shard.rows, ranges[0])) : [];
  const aside = ranges[1].length > 0 ? decodeTasks(takeRanges(shard.aside, ranges[1])) : [];
  let k = 0;
  let a = 0;
  return rows.map((i) => (isAside(shard, i) ? aside[a++]! : kept[k++]!));
}

/**
 * The shard's rows in `kept` (shard row runs, ascending), in input order, as one table for the
 * writer. A record batch of the kept section whose rows are all kept, with no row of the other
 * section between them, is handed on as it came (it keeps its IPC bytes, which then go to LanceDB
 * as they are); the other rows are copied out, a run of consecutive rows of one section at a time.
 */
export function keptRowsOf(shard: DecodedShard, kept: readonly RowRange[]): arrow.Table {
  const out = new KeptBatches(shard);
  // Kept-section rows that follow each other there (only dropped rows of the other section between
  // them) make one run, so that a batch they cover whole passes as it came.
  let run: [number, number] | null = null;
  for (const [start, end] of kept) {
    let i = start;
    while (i < end) {
      const aside = isAside(shard, i);
      let j = i + 1;
      while (j < end && isAside(shard, j) === aside) j++;
      const [k, a] = sectionsOf(shard, i, j);
      if (aside) {
        if (run) out.keptRun(run);
        run = null;
        out.take(1, a);
      } else if (run && run[1] === k[0]) run[1] = k[1];
      else {
        if (run) out.keptRun(run);
        run = [k[0], k[1]];
      }
      i = j;
    }
  }
  if (run) out.keptRun(run);
  return out.finish();
}

/** Record batches in order: whole batches of the kept section as they came, runs copied in between. */
class KeptBatches {
  private readonly shard: DecodedShard;
  private readonly batches: arrow.RecordBatch[] = [];
  /** Runs of one section waiting to be copied, in order: copied as one take when the next part differs. */
  private pending: { side: 0 | 1; ranges: RowRange[] } | null = null;
  /** Where each batch of the kept section starts (and, last, its rows). */
  private readonly starts: number[] = [0];

  constructor(shard: DecodedShard) {
    this.shard = shard;
    for (const b of shard.rows.batches) this.starts.push(this.starts.at(-1)! + b.numRows);
  }

  /** A run of the kept section: whole batches pass as they are, the parts of others are copied. */
  keptRun([start, end]: RowRange): void {
    let at = start;
    for (let b = 0; b < this.shard.rows.batches.length && at < end; b++) {
      const [bs, be] = [this.starts[b]!, this.starts[b + 1]!];
      if (be <= at) continue;
      const to = Math.min(end, be);
      if (at === bs && to === be && be > bs) {
        this.flush();
        this.batches.push(this.shard.rows.batches[b]!);
      } else this.take(0, [at, to]);
      at = to;
    }
  }

  take(side: 0 | 1, range: RowRange): void {
    if (range[1] <= range[0]) return;
    if (this.pending && this.pending.side !== side) this.flush();
    this.pending ??= { side, ranges: [] };
    this.pending.ranges.push(range);
  }

  finish(): arrow.Table {
    this.flush();
    return new arrow.Table(this.shard.rows.schema, this.batches);
  }

  private flush(): void {
    if (!this.pending) return;
    const from = this.pending.side === 0 ? this.shard.rows : this.shard.aside;
    for (const b of takeRanges(from, this.pending.ranges).batches)
      this.batches.push(new arrow.RecordBatch(this.shard.rows.schema, b.data));
    this.pending = null;
  }
}
