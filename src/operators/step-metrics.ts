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

const NAMED = /\b(column|field|table|key|step) '([^'\n]{1,60})'/g;

/**
 * The class a concrete reason is counted under in summaries: ids, numbers, quoted values and the
 * row's column list are blanked so like reasons group, but the names of columns, fields, tables and
 * keys stay (`prompt: missing column 'questoin' (the row has: …)`), since they are what a user fixes.
 * The concrete reason itself is what `rejected` stores; this is computed beside it, when summarising.
 * `duplicate of t_3fa2… (similarity 0.91)` → `duplicate of <id> (similarity #)`; `mode gsm8k` keeps its name.
 */
export function reasonClass(reason: string): string {
  const names: string[] = [];
  return (
    reason
      .replace(/\(the row has: [^)]*\)/g, '(the row has: …)')
      .replace(NAMED, (_, what: string, name: string) => {
        names.push(name);
        return `${what} '\u0000${names.length - 1}\u0000'`;
      })
      .replace(/\bt_[0-9a-f]{6,}\b/g, '<id>')
      .replace(/"(?:[^"\\\n]|\\.)*"/g, '"…"')
      .replace(/'[^'\u0000]*'/g, "'…'")
      // Only standalone numbers: digits inside a name (gsm8k, qwen3, a1) are part of the name.
      .replace(/(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?(?!\w|\.\d)/g, '#')
      .replace(/\u0000#\u0000/g, () => names.shift() ?? '')
      .slice(0, 160)
  );
}

/** Count one dropped row under its reason's class in a step's metrics. */
export function countReason(m: StepMetrics, reason: string): void {
  m.dropped++;
  const c = reasonClass(reason);
  m.reasons[c] = (m.reasons[c] ?? 0) + 1;
}

/** The most frequent reason classes over some steps, as `step: reason ×n`, largest first. */
export function topReasons(steps: readonly StepMetrics[], limit = 3): string[] {
  const all: Array<[string, number]> = [];
  for (const s of steps) for (const [r, n] of Object.entries(s.reasons)) all.push([`${s.step}: ${r}`, n]);
  all.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return all.slice(0, limit).map(([r, n]) => `${r} ×${n}`);
}

export function addMetrics(target: Record<string, number>, add: Record<string, number> | undefined): void {
  if (!add) return;
  for (const [k, v] of Object.entries(add)) if (Number.isFinite(v)) target[k] = (target[k] ?? 0) + v;
}

/** Add one step's counts into another's (the same step measured elsewhere: a worker, a shard). */
export function addStepCounts(target: StepMetrics, add: StepMetrics): void {
  target.rowsIn += add.rowsIn;
  target.rowsOut += add.rowsOut;
  target.dropped += add.dropped;
  target.warnings += add.warnings;
  target.ms += add.ms;
  for (const [r, n] of Object.entries(add.reasons)) target.reasons[r] = (target.reasons[r] ?? 0) + n;
  addMetrics(target.extra, add.extra);
}
