import { performance } from 'node:perf_hooks';
import type * as arrow from 'apache-arrow';
import type { Task } from '../../core/task.ts';
import type { StepMetrics } from '../../operators/step-metrics.ts';
import { HashedExactDedup } from '../../operators/task/exact-dedup-hashed.ts';
import type { LandedMeasures } from '../../operators/task/landed-measures.ts';
import type { ChunkWay, LandingBatch } from '../../pipeline-workers/chunk-batches.ts';
import { EncodedRows } from '../../pipeline-workers/encoded-rows.ts';
import type { RowStage } from '../../pipeline-workers/row-stage.ts';
import type { RowsEstimate } from './rows-estimate.ts';

/** What landing encoded batches needs of the run's stream (StreamContext's part). */
export interface EncodedLandingContext {
  stage: RowStage;
  /** The steps after the row-wise ones: exact_dedup alone. */
  graph: { metrics(): StepMetrics[] };
  rejectTask(step: string, task: Task, reason: string): void;
  warn(message: string): void;
  afterBatch(file: string, rowsRead: number): void;
  rowsEstimate?: RowsEstimate;
  /**
   * The writer's id check on a row about to land (TaskLanding.admitEncoded) when the chain's
   * exact_dedup does not drop repeated ids itself (`checkIds: false`); absent when it does.
   */
  admitEncoded?: (id: string, source: Task['source'], task: () => Task) => boolean;
}

type LandEncoded = (
  rows: arrow.Table,
  measures: LandedMeasures | null,
  kept: readonly number[],
) => Promise<void>;

/**
 * Chunks whose rows come back from the workers encoded (encoded-chunk.ts; the rest of the chain is
 * exact_dedup alone): each batch is dedup'd here on the workers' ids and key hashes, with the
 * operator's decisions, reasons and counts (HashedExactDedup), its dropped rows recorded as the
 * graph records them, and its kept rows handed to the writer as the workers' Arrow. No task object
 * is made on this thread for a row that lands. `tailSteps` are the exact_dedup step's counts.
 */
export function encodedWay(
  c: EncodedLandingContext,
  landEncoded: LandEncoded,
  o: { checkIds: boolean },
): ChunkWay<number> & { tailSteps(): StepMetrics[] } {
  const rows = new EncodedRows();
  const dedup = new HashedExactDedup(c.graph.metrics()[0]!, o);
  return {
    run: async (job, here) => {
      const done = await c.stage.runEncodedChunk(job, here);
      return { rows: (lineOffset) => rows.add(done.chunk, job.file, lineOffset), warnings: done.warnings };
    },
    land: async (b, rowsRead) => {
      await landEncodedBatch(c, b, { rows, dedup, landEncoded });
      c.afterBatch(b.file, rowsRead);
    },
    canHelp: () => c.stage.mayHelp,
    tailSteps: () => [dedup.metrics()],
  };
}

/** One batch, as landStaged lands it: warnings, the row-wise steps' drops, exact_dedup's drops, then the kept rows. */
async function landEncodedBatch(
  c: EncodedLandingContext,
  b: LandingBatch<number>,
  o: { rows: EncodedRows; dedup: HashedExactDedup; landEncoded: LandEncoded },
): Promise<void> {
  for (const w of b.warnings) c.warn(`${w.step}: ${w.message}`);
  for (const r of b.rejected) c.rejectTask(r.step, r.row, r.reason);
  o.dedup.reserve(c.rowsEstimate?.expected);
  const t0 = performance.now();
  let kept: number[] = [];
  const dropped: number[] = [];
  const reasons: string[] = [];
  for (const g of b.tasks) {
    const { id, key, check } = o.rows.hashed(g);
    const reason = o.dedup.judge(id, key, check);
    if (reason === null) kept.push(g);
    else {
      dropped.push(g);
      reasons.push(reason);
    }
  }
  o.dedup.account(b.tasks.length, reasons, performance.now() - t0);
  const step = o.dedup.metrics().step;
  for (const [k, g] of dropped.entries()) c.rejectTask(step, o.rows.task(g), reasons[k]!);
  // The writer's id check, after exact_dedup's drops as `land` makes it after the graph's.
  const admit = c.admitEncoded;
  if (admit) kept = kept.filter((g) => admit(o.rows.hashed(g).id, o.rows.source(g), () => o.rows.task(g)));
  const upTo = b.tasks.length > 0 ? b.tasks[b.tasks.length - 1]! + 1 : 0;
  const taken = o.rows.take(kept, upTo);
  if (taken.rows)
    await o.landEncoded(taken.rows, taken.measures, taken.measures ? kept.map((_, k) => k) : []);
}
