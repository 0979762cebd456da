// The simulator leaderboard as one offline HTML page: per scenario, mean held-out accuracy against
// steps and against rollouts spent (every rollout a method pays for), then the tables.
import { escapeHtml, lineChart, REPORT_CSS, type Series } from '../../src/lifecycle/report/charts.ts';
import { formatSelectionTable } from './format.ts';
import type { ScenarioResult, SelectionBenchResult } from './runner.ts';

/** Distinct colours for up to ~20 series (random always grey). */
export function seriesColor(name: string, i: number): string {
  if (name === 'random') return '#888888';
  return `hsl(${Math.round((i * 137.508) % 360)}, 65%, 42%)`;
}

function series(sc: ScenarioResult, x: 'steps' | 'rollouts'): Series[] {
  return sc.curves.map((c, i) => ({
    label: c.selector,
    color: seriesColor(c.selector, i),
    points: c.accuracy.map((y, k) => [x === 'steps' ? c.steps[k]! : c.rollouts[k]!, y] as [number, number]),
  }));
}

export function selectionHtml(r: SelectionBenchResult): string {
  const charts = r.scenarios.flatMap((sc) => [
    `<h2>${escapeHtml(sc.scenario)}</h2>`,
    lineChart(`${sc.scenario}: held-out accuracy by step`, series(sc, 'steps'), { percent: true }),
    lineChart(`${sc.scenario}: held-out accuracy by rollouts spent`, series(sc, 'rollouts'), {
      percent: true,
    }),
  ]);
  return `<!doctype html><html><head><meta charset="utf-8"><title>bench selection</title><style>${REPORT_CSS}</style></head><body>
<h1>Task selection leaderboard (learner simulator)</h1>
${charts.join('\n')}
<pre>${escapeHtml(formatSelectionTable(r))}</pre>
</body></html>
`;
}
