/**
 * The line chart of the reports and the comparison page, with its axis functions. Everything in
 * this file calls only functions of this file, so `chartScriptSource()` can hand the browser the
 * compiled source of exactly the code the tests check (the comparison page draws with it offline).
 */

/** Text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
/** A value axis: its drawn range, the tick spacing and the ticks (all multiples of `step`). */
export interface Axis {
  min: number;
  max: number;
  /** 1, 2 or 5 × 10^k. */
  step: number;
  ticks: number[];
}

export interface AxisOptions {
  /** At most this many ticks (default 6, at least 3: a range across zero needs three). */
  maxTicks?: number;
  /** Share of the data's span added on each side before rounding (default 0.05). */
  padding?: number;
  /** The axis never leaves these bounds unless the data does (ratios: [0, 1]). */
  bounds?: readonly [number, number];
  /** Stretch the range to include 0 (counts, throughput). */
  includeZero?: boolean;
  /** Ticks at whole numbers only (steps, counts). */
  integer?: boolean;
}

/**
 * A "nice" axis for data in [dataMin, dataMax]: padded a little, then widened to multiples of the
 * smallest step of 1, 2 or 5 × 10^k that needs at most `maxTicks` ticks. The range follows the
 * data, so accuracy moving from 33% to 43% is drawn on 30%–45%, not flat on 0–100%.
 */
export function niceAxis(dataMin: number, dataMax: number, opts: AxisOptions = {}): Axis {
  const maxTicks = Math.max(3, Math.floor(opts.maxTicks ?? 6));
  const pad = opts.padding ?? 0.05;
  let dLo = Math.min(dataMin, dataMax);
  let dHi = Math.max(dataMin, dataMax);
  if (opts.includeZero) {
    dLo = Math.min(dLo, 0);
    dHi = Math.max(dHi, 0);
  }
  let lo = dLo;
  let hi = dHi;
  const span = dHi - dLo;
  const flat = !(span > Math.max(Math.abs(dLo), Math.abs(dHi)) * 1e-9);
  if (flat) {
    // One value: a band around it (integers: ±1, else ±10% of it, or ±1 around zero).
    const half = opts.integer ? 1 : dLo === 0 ? 1 : Math.abs(dLo) * 0.1;
    lo = dLo - half;
    hi = dHi + half;
  } else {
    if (!(opts.includeZero && dLo === 0)) lo -= span * pad;
    if (!(opts.includeZero && dHi === 0)) hi += span * pad;
    // Padding never pushes an axis of positive (negative) data across zero.
    if (dLo >= 0) lo = Math.max(lo, 0);
    if (dHi <= 0) hi = Math.min(hi, 0);
  }
  const bounded = (v: number, which: 0 | 1) =>
    !opts.bounds
      ? v
      : which === 0
        ? Math.max(v, Math.min(opts.bounds[0], dLo))
        : Math.min(v, Math.max(opts.bounds[1], dHi));
  const fitTicks = (from: number, to: number): Axis => {
    let e = Math.floor(Math.log10((to - from) / (maxTicks - 1)));
    for (;;) {
      for (const m of [1, 2, 5]) {
        const step = m * 10 ** e;
        if (opts.integer && step < 1) continue;
        // The tolerance keeps float noise (0.3 / 0.05 = 5.999…) from adding a tick.
        const first = Math.floor(from / step + 1e-9);
        const last = Math.max(first + 1, Math.ceil(to / step - 1e-9));
        if (last - first + 1 > maxTicks) continue;
        const decimals = Math.max(0, -e);
        const ticks: number[] = [];
        for (let k = first; k <= last; k++) ticks.push(Number((k * step).toFixed(decimals)));
        return { min: ticks[0]!, max: ticks[ticks.length - 1]!, step, ticks };
      }
      e++;
    }
  };
  const padded = fitTicks(bounded(lo, 0), bounded(hi, 1));
  if (flat) return padded;
  // Where the padding alone would double the step, the data's own range reads better.
  const tight = fitTicks(bounded(dLo, 0), bounded(dHi, 1));
  return tight.step < padded.step ? tight : padded;
}

/** Integer ticks inside [min, max] (steps on the x axis): the range itself is not widened. */
export function stepTicks(min: number, max: number, maxTicks = 6): number[] {
  if (max <= min) return [min];
  const raw = (max - min) / Math.max(1, maxTicks - 1);
  let e = Math.max(0, Math.floor(Math.log10(raw)));
  for (;;) {
    for (const m of [1, 2, 5]) {
      const step = m * 10 ** e;
      const ticks: number[] = [];
      for (let v = Math.ceil(min / step) * step; v <= max; v += step) ticks.push(v);
      if (ticks.length <= maxTicks) return ticks;
    }
    e++;
  }
}

/**
 * A tick label with as many decimals as the step needs (0.05 → "0.35"; ratios as percentages:
 * 0.05 → "35%"); large numbers get thousands separators.
 */
export function formatTick(value: number, step: number, percent = false): string {
  const v = percent ? value * 100 : value;
  const s = percent ? step * 100 : step;
  const decimals = Math.max(0, -Math.floor(Math.log10(s) + 1e-9));
  const text =
    Math.abs(v) >= 10000
      ? v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
      : v.toFixed(decimals);
  const clean = text === `-${(0).toFixed(decimals)}` ? text.slice(1) : text;
  return percent ? `${clean}%` : clean;
}

/** A measured number for tables and tooltips: 3 significant digits (ratios: a percentage with one decimal). */
export function formatValue(value: number | null | undefined, percent = false): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (percent) return `${(value * 100).toFixed(1)}%`;
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  const a = Math.abs(value);
  if (a >= 1000) return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
  return String(Number(value.toPrecision(3)));
}

export interface Series {
  label: string;
  points: Array<[number, number]>;
  color: string;
}

export interface LineChartOptions {
  /** The y axis stays inside [yMin, yMax] unless the data leaves it (it is scaled to the data within). */
  yMin?: number;
  yMax?: number;
  /** Values are shares in [0, 1], labelled as percentages (bounds default to [0, 1]). */
  percent?: boolean;
  /** Stretch the y axis to include 0 (throughput, counts). */
  includeZero?: boolean;
  /** Name of the y quantity, drawn beside the axis. */
  yLabel?: string;
}

/**
 * An SVG line chart of one or more series over steps (no scripts, no network). The y axis is
 * scaled to the data (nice-number range, a little padding, labelled ticks); the x axis is labelled
 * at whole steps. Each point carries its exact value (`data-x`, `data-y`) and a rounded tooltip.
 * It calls only functions of this file.
 */
export function lineChart(title: string, series: Series[], opts: LineChartOptions = {}): string {
  const W = 460;
  const H = 230;
  const L = 52;
  const R = 14;
  const rows = Math.ceil(series.length / 3);
  const T = 10 + rows * 16;
  const B = 34;
  const all = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y));
  if (all.length === 0)
    return `<figure><figcaption>${escapeHtml(title)}</figcaption><p class="empty">no data</p></figure>`;
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs, x0 + 1);
  const percent = opts.percent === true;
  const lo = opts.yMin ?? (percent ? 0 : Number.NEGATIVE_INFINITY);
  const hi = opts.yMax ?? (percent ? 1 : Number.POSITIVE_INFINITY);
  const y = niceAxis(Math.min(...ys), Math.max(...ys), {
    bounds: [lo, hi],
    ...(opts.includeZero ? { includeZero: true } : {}),
  });
  const sx = (v: number) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const sy = (v: number) => T + (1 - (v - y.min) / (y.max - y.min)) * (H - T - B);
  const f1 = (v: number) => v.toFixed(1);
  const grid = y.ticks
    .map(
      (v) =>
        `<line x1="${L}" x2="${W - R}" y1="${f1(sy(v))}" y2="${f1(sy(v))}" class="grid"/><text x="${L - 6}" y="${f1(sy(v) + 4)}" text-anchor="end">${formatTick(v, y.step, percent)}</text>`,
    )
    .join('');
  const xTicks = stepTicks(x0, x1)
    .map(
      (v) =>
        `<line x1="${f1(sx(v))}" x2="${f1(sx(v))}" y1="${H - B}" y2="${H - B + 4}" class="axis"/><text x="${f1(sx(v))}" y="${H - B + 16}" text-anchor="middle">${v}</text>`,
    )
    .join('');
  const axes = `<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" class="axis"/><line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" class="axis"/><text x="${L + (W - L - R) / 2}" y="${H - 4}" text-anchor="middle">step</text>`;
  const yLabel = opts.yLabel
    ? `<text transform="translate(12 ${f1(T + (H - T - B) / 2)}) rotate(-90)" text-anchor="middle">${escapeHtml(opts.yLabel)}</text>`
    : '';
  const lines = series
    .map((s) => {
      const pts = s.points.filter(([, v]) => Number.isFinite(v));
      if (pts.length === 0) return '';
      const d = pts.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${f1(sx(px))},${f1(sy(py))}`).join(' ');
      const dots =
        pts.length <= 80
          ? pts
              .map(
                ([px, py]) =>
                  `<circle cx="${f1(sx(px))}" cy="${f1(sy(py))}" r="2.4" fill="${s.color}" data-x="${px}" data-y="${py}"><title>${escapeHtml(s.label)} · step ${px}: ${formatValue(py, percent)}</title></circle>`,
              )
              .join('')
          : '';
      return `<g data-series="${escapeHtml(s.label)}"><path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"/>${dots}</g>`;
    })
    .join('');
  const legend = series
    .map(
      (s, i) =>
        // A swatch beside the label: the page style greys chart text, so the colour is in the rect.
        `<rect x="${L + (i % 3) * 136}" y="${5 + Math.floor(i / 3) * 16}" width="10" height="10" fill="${s.color}"/><text x="${L + (i % 3) * 136 + 14}" y="${14 + Math.floor(i / 3) * 16}">${escapeHtml(s.label.length > 20 ? `${s.label.slice(0, 19)}…` : s.label)}</text>`,
    )
    .join('');
  return `<figure><figcaption>${escapeHtml(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}" data-y-min="${y.min}" data-y-max="${y.max}">${grid}${axes}${xTicks}${yLabel}${lines}${legend}</svg></figure>`;
}

/**
 * The chart code as browser script source: the axis functions, escapeHtml and lineChart, from
 * their own compiled text (the same code the tests run), for pages that draw without a server.
 */
export function chartScriptSource(): string {
  return [escapeHtml, niceAxis, stepTicks, formatTick, formatValue, lineChart]
    .map((f) => f.toString())
    .join('\n');
}
