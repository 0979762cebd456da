/** What one step of a graph did over a whole run. */
export interface StepMetrics {
  /** Unique step label in the graph (e.g. `length_filter` or `by_domain/long/near_dedup`). */
  step: string;
  /** Operator name (registry name) or `branch`. */
  op: string;
  kind: string;
  rowsIn: number;
  rowsOut: number;
  dropped: number;
  /** Drop counts by reason class (ids and numbers in reasons are blanked so like reasons group). */
  reasons: Record<string, number>;
  warnings: number;
  ms: number;
  /** Sums of the operator's own metrics. */
  extra: Record<string, number>;
}

export function emptyMetrics(step: string, op: string, kind: string): StepMetrics {
  return { step, op, kind, rowsIn: 0, rowsOut: 0, dropped: 0, reasons: {}, warnings: 0, ms: 0, extra: {} };
}

/** `duplicate of t_3fa2… (similarity 0.91)` → `duplicate of <id> (similarity #)`. */
export function reasonClass(reason: string): string {
  return reason
    .replace(/\bt_[0-9a-f]{6,}\b/g, '<id>')
    .replace(/'[^']*'/g, "'…'")
    .replace(/-?\d+(\.\d+)?(e-?\d+)?/g, '#')
    .slice(0, 120);
}

export function addMetrics(target: Record<string, number>, add: Record<string, number> | undefined): void {
  if (!add) return;
  for (const [k, v] of Object.entries(add)) if (Number.isFinite(v)) target[k] = (target[k] ?? 0) + v;
}
