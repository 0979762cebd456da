import type { StepRecord } from './rft-runner.ts';

interface Series {
  label: string;
  points: Array<[number, number]>;
  color: string;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

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
  if (all.length === 0)
    return `<figure><figcaption>${esc(title)}</figcaption><p class="empty">no data</p></figure>`;
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

export interface ReportInput {
  name: string;
  runId: string;
  config: unknown;
  history: StepRecord[];
  initialAccuracy?: number;
  finalAccuracy?: number;
  describe: Record<string, string>;
  counters: Record<string, number>;
  durationMs: number;
}

/** The run report: summary, charts over steps, and the config that produced it. */
export function renderReport(r: ReportInput): string {
  const h = r.history;
  const pts = (f: (s: StepRecord) => number | undefined): Array<[number, number]> =>
    h.map((s) => [s.step, f(s) ?? Number.NaN] as [number, number]).filter(([, y]) => Number.isFinite(y));
  const acc = pts((s) => s.accuracy);
  if (r.initialAccuracy !== undefined) acc.unshift([0, r.initialAccuracy]);
  const charts = [
    lineChart('Mean reward of rollouts', [
      { label: 'mean reward', points: pts((s) => s.meanReward), color: '#1f77b4' },
    ]),
    lineChart('Held-out accuracy (greedy)', [{ label: 'accuracy', points: acc, color: '#2ca02c' }], {
      yMin: 0,
      yMax: 1,
      percent: true,
    }),
    lineChart(
      'Effective task ratio (groups with mixed rewards)',
      [{ label: 'effective ratio', points: pts((s) => s.effectiveTaskRatio), color: '#d62728' }],
      {
        yMin: 0,
        yMax: 1,
        percent: true,
      },
    ),
    lineChart('Difficulty of selected tasks', [
      { label: 'mean difficulty', points: pts((s) => s.meanDifficulty), color: '#9467bd' },
    ]),
    lineChart(
      'Throughput',
      [{ label: 'rollouts / s', points: pts((s) => s.rolloutsPerSecond), color: '#ff7f0e' }],
      { yMin: 0 },
    ),
    lineChart('Training loss', [{ label: 'loss', points: pts((s) => s.trainLoss), color: '#8c564b' }]),
  ].join('\n');
  const pct = (v: number | undefined) => (v === undefined ? '—' : `${(v * 100).toFixed(1)}%`);
  const rows = Object.entries({
    ...r.describe,
    ...Object.fromEntries(Object.entries(r.counters).map(([k, v]) => [k, String(v)])),
  })
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Winnow run ${esc(r.name)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px} figure{display:inline-block;margin:8px 12px 8px 0;vertical-align:top}
figcaption{font-weight:600;margin-bottom:4px} svg text{font-size:11px;fill:#555} .grid{stroke:#e5e5e5}
table{border-collapse:collapse} th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top} th{color:#555;font-weight:500}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px} .empty{color:#999}
</style></head><body>
<h1>Winnow run: ${esc(r.name)}</h1>
<p>run ${esc(r.runId)} · ${h.length} steps · ${(r.durationMs / 1000).toFixed(1)} s · held-out accuracy ${pct(r.initialAccuracy)} → ${pct(r.finalAccuracy)}</p>
<table>${rows}</table>
${charts}
<h2>Config</h2><pre>${esc(JSON.stringify(r.config, null, 2))}</pre>
</body></html>
`;
}
