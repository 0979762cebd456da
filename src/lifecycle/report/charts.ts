/**
 * Small self-contained SVG charts for the HTML reports: no scripts, no network, so a report is one
 * file that opens offline and can be attached to an issue as is. Axis ranges and tick labels come
 * from report-sections/line-chart.ts.
 */

import { escapeHtml, niceAxis } from './sections/line-chart.ts';

export {
  type Axis,
  type AxisOptions,
  chartScriptSource,
  escapeHtml,
  formatTick,
  formatValue,
  type LineChartOptions,
  lineChart,
  niceAxis,
  type Series,
  stepTicks,
} from './sections/line-chart.ts';

const esc = escapeHtml;

/** The page style the reports share (chart text, grid lines, tables, the config block). */
export const REPORT_CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px} figure{display:inline-block;margin:8px 12px 8px 0;vertical-align:top}
figcaption{font-weight:600;margin-bottom:4px} svg text{font-size:11px;fill:#555} .grid{stroke:#e5e5e5} .axis{stroke:#999}
table{border-collapse:collapse} th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top} th{color:#555;font-weight:500}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px} .empty{color:#999} details>summary{cursor:pointer;font-weight:600}`;

const emptyFigure = (title: string) =>
  `<figure><figcaption>${esc(title)}</figcaption><p class="empty">no data</p></figure>`;

/**
 * One bar of a histogram: `tick` is drawn under the bar's left edge (empty: none; ticks that would
 * overlap the previous one are skipped), `range` is its hover text.
 */
export interface Bar {
  tick: string;
  range: string;
  count: number;
}

/**
 * A histogram as an SVG bar chart in the line chart's style. Bars are equally wide whatever their
 * value range, so log-scale bins stay readable.
 */
export function barChart(
  title: string,
  bars: readonly Bar[],
  opts: { color?: string; xLabel?: string; width?: number } = {},
): string {
  if (bars.length === 0 || bars.every((b) => b.count === 0)) return emptyFigure(title);
  const W = opts.width ?? 460;
  const H = 220;
  const L = 48;
  const R = 12;
  const T = 16;
  const B = opts.xLabel ? 44 : 30;
  const color = opts.color ?? '#1f77b4';
  const { ticks } = niceAxis(0, Math.max(...bars.map((b) => b.count)), {
    includeZero: true,
    integer: true,
    padding: 0,
  });
  const yMax = ticks[ticks.length - 1]!;
  const bw = (W - L - R) / bars.length;
  const sy = (v: number) => T + (1 - v / yMax) * (H - T - B);
  const grid = ticks
    .map(
      (v) =>
        `<line x1="${L}" x2="${W - R}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}" class="grid"/><text x="${L - 6}" y="${(sy(v) + 4).toFixed(1)}" text-anchor="end">${v.toLocaleString('en-US')}</text>`,
    )
    .join('');
  const rects = bars
    .map((b, i) => {
      const x = L + i * bw;
      const y = sy(b.count);
      return `<rect x="${(x + 0.5).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(bw - 1, 0.5).toFixed(1)}" height="${(sy(0) - y).toFixed(1)}" fill="${color}"><title>${esc(b.range)}: ${b.count.toLocaleString('en-US')}</title></rect>`;
    })
    .join('');
  // ~6.5 px per character at 11 px: a tick is drawn only where it clears the previous one.
  let lastTickEnd = Number.NEGATIVE_INFINITY;
  const xTicks = bars
    .map((b, i) => {
      const x = L + i * bw;
      const half = (b.tick.length * 6.5) / 2;
      if (b.tick === '' || x - half < lastTickEnd + 6) return '';
      lastTickEnd = x + half;
      return `<text x="${x.toFixed(1)}" y="${H - B + 14}" text-anchor="middle">${esc(b.tick)}</text>`;
    })
    .join('');
  const axis = `<line x1="${L}" x2="${W - R}" y1="${sy(0).toFixed(1)}" y2="${sy(0).toFixed(1)}" stroke="#999"/>`;
  const xLabel = opts.xLabel
    ? `<text x="${(L + (W - L - R) / 2).toFixed(1)}" y="${H - 6}" text-anchor="middle">${esc(opts.xLabel)}</text>`
    : '';
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${grid}${rects}${axis}${xTicks}${xLabel}</svg></figure>`;
}
