// The curriculum bench as one offline HTML page: mean held-out accuracy curves per selector (all
// levels, and per level), and the summary table.
import { escapeHtml, lineChart, REPORT_CSS, type Series } from '../../src/lifecycle/charts.ts';
import { seriesColor } from '../selection/html.ts';
import { type CurriculumResult, textReport } from './report.ts';

/** Mean over seeds of each evaluated step's accuracy (or one level's), per selector. */
function meanSeries(r: CurriculumResult, level?: string): Series[] {
  const names = r.summary.map((s) => s.selector);
  return names.map((name, i) => {
    const curves = r.curves.filter((c) => c.selector === name);
    const steps = curves[0]?.points.map((p) => p.step) ?? [];
    const points: Array<[number, number]> = steps.map((step, k) => {
      const ys = curves.map((c) => {
        const p = c.points[k]!;
        return level === undefined ? p.accuracy : (p.levels[level] ?? Number.NaN);
      });
      return [step, ys.reduce((a, b) => a + b, 0) / ys.length];
    });
    return { label: name, points, color: seriesColor(name, i) };
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
<h1>Task selection on the real tiny learner: curriculum pool</h1>
<pre>${escapeHtml(textReport(r))}</pre>
${charts.join('\n')}
</body></html>
`;
}
