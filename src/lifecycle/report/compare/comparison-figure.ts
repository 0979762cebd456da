/**
 * The comparison's chart and value table for one metric. Self-contained (the drawing functions
 * come in as `lib`), so the comparison page inlines this very function's source and redraws in
 * the browser when the reader picks another metric or run, with no server and no network.
 */

/** The slice of a RunComparison the figure reads (kept structural so the browser can pass plain JSON). */
export interface FigureData {
  runs: ReadonlyArray<{ id: string }>;
  steps: readonly number[];
  metrics: ReadonlyArray<{ key: string; label: string; unit: string }>;
  series: Record<string, Record<string, ReadonlyArray<number | null>>>;
}

export interface FigureLib {
  lineChart(
    title: string,
    series: Array<{ label: string; points: Array<[number, number]>; color: string }>,
    opts: { percent?: boolean },
  ): string;
  escapeHtml(s: string): string;
  formatValue(v: number | null | undefined, percent?: boolean): string;
}

/** A run's colour by its place in the comparison (stable whichever runs are shown). */
export const RUN_COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

/**
 * The chart of `key` overlaying the runs in `shown` (ids), and a table of every value it draws:
 * one row per step with a value, one column per run (`data-value` holds the exact number).
 */
export function comparisonFigure(
  data: FigureData,
  key: string,
  shown: readonly string[],
  colors: readonly string[],
  lib: FigureLib,
): string {
  const metric = data.metrics.find((m) => m.key === key);
  if (!metric) return `<p class="empty">no metric ${lib.escapeHtml(key)}</p>`;
  const percent = metric.unit === 'ratio';
  const runs = data.runs
    .map((r, i) => ({ id: r.id, color: colors[i % colors.length]! }))
    .filter((r) => shown.includes(r.id));
  const valuesOf = (id: string) => data.series[key]?.[id] ?? [];
  const series = runs.map((r) => ({
    label: r.id,
    color: r.color,
    points: data.steps
      .map((s, j) => [s, valuesOf(r.id)[j]] as [number, number | null | undefined])
      .filter((p): p is [number, number] => typeof p[1] === 'number'),
  }));
  const chart = lib.lineChart(`${metric.label} over steps`, series, { percent });
  const rows = data.steps
    .map((s, j) => {
      if (!runs.some((r) => typeof valuesOf(r.id)[j] === 'number')) return '';
      const cells = runs
        .map((r) => {
          const v = valuesOf(r.id)[j];
          return typeof v === 'number'
            ? `<td data-run="${lib.escapeHtml(r.id)}" data-step="${s}" data-value="${v}">${lib.formatValue(v, percent)}</td>`
            : '<td>—</td>';
        })
        .join('');
      return `<tr><th>${s}</th>${cells}</tr>`;
    })
    .join('');
  const head = runs.map((r) => `<th style="color:${r.color}">${lib.escapeHtml(r.id)}</th>`).join('');
  return `${chart}<table class="values" data-metric="${lib.escapeHtml(key)}"><tr><th>step</th>${head}</tr>${rows}</table>`;
}
