import { addStepCounts, countReason, type StepMetrics } from '../step-metrics.ts';
import { ExactDedupIndex } from './exact-dedup-index.ts';

/**
 * exact_dedup run on rows that are not tasks here: each row is its id and the key
 * hash a worker computed for its text (exact-dedup-prepared.ts). The decisions, reasons and step
 * counts are the operator's (exact-dedup.ts): an id seen before drops the row as `duplicate id …`
 * (unless ids are not checked),
 * then a text seen before as `duplicate of <first id>`, else the row is kept and remembered.
 * A run whose rows come back from its workers already encoded (no task object on the main thread)
 * dedups them with this, batch by batch, in input order.
 */
export class HashedExactDedup {
  private readonly seen: ExactDedupIndex;
  private readonly totals: StepMetrics;
  private batchIds = 0;
  private batchTexts = 0;
  private sized = false;

  /**
   * `step`: the exact_dedup step's counts as the graph names it (its totals start at zero);
   * `checkIds`: the operator's param (false: ids are kept only to name the first row).
   */
  constructor(step: StepMetrics, o: { checkIds: boolean } = { checkIds: true }) {
    this.seen = new ExactDedupIndex(o.checkIds);
    this.totals = { ...step, rowsIn: 0, rowsOut: 0, dropped: 0, ms: 0, warnings: 0, reasons: {}, extra: {} };
  }

  /** Size the index once for the rows the run expects (as the operator does from expectedRows). */
  reserve(rows: number | undefined): void {
    if (this.sized || rows === undefined) return;
    this.seen.reserve(rows);
    this.sized = true;
  }

  /** One row, in input order: null when it is kept, else why it is dropped. */
  judge(id: string, key: number, check: number): string | null {
    if (this.seen.findId(id) >= 0) {
      this.batchIds++;
      return `duplicate id ${id}`;
    }
    const first = this.seen.findText(key, check);
    if (first >= 0) {
      this.batchTexts++;
      return `duplicate of ${this.seen.idAt(first)}`;
    }
    this.seen.add(id, key, check);
    return null;
  }

  /**
   * Close one batch as the graph accounts a step's batch (operators/graph.ts `account`): `rowsIn`
   * rows judged, `drops` their drop reasons in row order. A batch with no rows is not run.
   */
  account(rowsIn: number, drops: readonly string[], ms: number): void {
    const extra = { duplicate_ids: this.batchIds, duplicate_texts: this.batchTexts };
    this.batchIds = 0;
    this.batchTexts = 0;
    if (rowsIn === 0) return;
    const batch: StepMetrics = {
      ...this.totals,
      rowsIn,
      rowsOut: rowsIn - drops.length,
      dropped: 0,
      warnings: 0,
    };
    addStepCounts(this.totals, { ...batch, ms, reasons: {}, extra });
    for (const reason of drops) countReason(this.totals, reason);
  }

  /** The step's counts so far, as the graph's `metrics()` gives them. */
  metrics(): StepMetrics {
    return { ...this.totals, reasons: { ...this.totals.reasons }, extra: { ...this.totals.extra } };
  }
}
