// The curriculum bench as one offline HTML page: mean held-out accuracy curves per selector (all
// levels, and per level), and the summary table.
import { escapeHtml, lineChart, REPORT_CSS, type Series } from '../../src/lifecycle/charts.ts';
import { seriesColor } from '../selection/html.ts';
import { CURVE_SHARES, type CurriculumResult, meanCurve, textReport } from './report.ts';

/** Mean held-out accuracy (or one level's) at shares of each seed's budget, per selector, in percent of the budget. */
function meanSeries(r: CurriculumResult, level?: string): Series[] {
  return r.summary.map((s, i) => {
    const ys = meanCurve(r, s.selector, level);
    const points: Array<[number, number]> = CURVE_SHARES.map((share, k) => [share * 100, ys[k]!]);
    return { label: s.selector, points, color: seriesColor(s.selector, i) };
  });
}

export function curriculumHtml(r: CurriculumResult): string {
  const charts = [
    lineChart('held-out accuracy, all levels (mean over seeds)', meanSeries(r), {
      yMin: 0,
      yMax: 1,
      percent: true,
    }),
    ...r.pool.levels.map((l) =>
      lineChart(`held-out accuracy, ${l}`, meanSeries(r, l), { yMin: 0, yMax: 1, percent: true }),
    ),
  ];
  return `<!doctype html><html><head><meta charset="utf-8"><title>bench curriculum</title><style>${REPORT_CSS}</style></head><body>
<h1>Task selection on the real tiny learner: ${escapeHtml(r.learner)} (x: % of random's rollouts)</h1>
<pre>${escapeHtml(textReport(r))}</pre>
${charts.join('\n')}
</body></html>
`;
}
