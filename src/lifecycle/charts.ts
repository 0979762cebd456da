/**
 * Small self-contained SVG charts for the HTML reports: no scripts, no network, so a report is one
 * file that opens offline and can be attached to an issue as is.
 */

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const esc = escapeHtml;

/** The page style the reports share (chart text, grid lines, tables, the config block). */
export const REPORT_CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px} figure{display:inline-block;margin:8px 12px 8px 0;vertical-align:top}
figcaption{font-weight:600;margin-bottom:4px} svg text{font-size:11px;fill:#555} .grid{stroke:#e5e5e5}
table{border-collapse:collapse} th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top} th{color:#555;font-weight:500}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px} .empty{color:#999}`;

export interface Series {
  label: string;
  points: Array<[number, number]>;
  color: string;
}

const emptyFigure = (title: string) =>
  `<figure><figcaption>${esc(title)}</figcaption><p class="empty">no data</p></figure>`;

/** A small self-contained SVG line chart (no scripts, no network), one or more series over steps. */
export function lineChart(
  title: string,
  series: Series[],
  opts: { yMin?: number; yMax?: number; percent?: boolean } = {},
): string {
  const W = 460;
  const H = 220;
  const L = 48;
  const R = 12;
  const T = 28;
  const B = 32;
  const all = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y));
  if (all.length === 0) return emptyFigure(title);
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs, x0 + 1);
  let y0 = opts.yMin ?? Math.min(...ys);
  let y1 = opts.yMax ?? Math.max(...ys);
  if (y1 - y0 < 1e-9) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  const sx = (x: number) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y: number) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const fmt = (v: number) =>
    opts.percent ? `${(v * 100).toFixed(0)}%` : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => y0 + f * (y1 - y0));
  const grid = ticks
    .map(
      (v) =>
        `<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" class="grid"/><text x="${L - 6}" y="${sy(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
    )
    .join('');
  const lines = series
    .map((s) => {
      const pts = s.points.filter(([, y]) => Number.isFinite(y));
      if (pts.length === 0) return '';
      const d = pts
        .map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`)
        .join(' ');
      const dots =
        pts.length <= 60
          ? pts
              .map(
                ([x, y]) =>
                  `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.2" fill="${s.color}"/>`,
              )
              .join('')
          : '';
      return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"/>${dots}`;
    })
    .join('');
  const legend = series
    .map((s, i) => `<text x="${L + i * 150}" y="16" fill="${s.color}">■ ${esc(s.label)}</text>`)
    .join('');
  const xlabels = `<text x="${L}" y="${H - 10}">step ${x0}</text><text x="${W - R}" y="${H - 10}" text-anchor="end">step ${x1}</text>`;
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${grid}${lines}${legend}${xlabels}</svg></figure>`;
}

/**
 * One bar of a histogram: `tick` is drawn under the bar's left edge (empty: none; ticks that would
 * overlap the previous one are skipped), `range` is its hover text.
 */
export interface Bar {
  tick: string;
  range: string;
  count: number;
}

/** Count axis ticks at round values (1, 2 or 5 × 10^k), so grid labels read as plain numbers. */
function countTicks(max: number): number[] {
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 0.001; v += step) ticks.push(v);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
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
  const ticks = countTicks(Math.max(...bars.map((b) => b.count)));
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
