import type { StepRecord } from '../run/step-record.ts';
import { escapeHtml as esc, formatValue, lineChart, REPORT_CSS } from './charts.ts';
import type { ReportInput } from './report-input.ts';
import { bufferSection } from './sections/buffer.ts';
import { domainsSection } from './sections/domains.ts';
import { evaluationSection } from './sections/evaluation.ts';
import { examplesSection } from './sections/examples.ts';
import { operatorsSection } from './sections/operators.ts';
import { toolsSection } from './sections/tools.ts';

// Re-exported: the chart helper used to live here and is part of the package's API.
export { lineChart } from './charts.ts';

/**
 * The run report: summary, charts over steps (axes scaled to the data), accuracy by domain,
 * evaluation sets, buffer and replay settings, operators, examples, and the config (folded away).
 */
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
      percent: true,
    }),
    lineChart(
      'Effective task ratio (groups with mixed rewards)',
      [{ label: 'effective ratio', points: pts((s) => s.effectiveTaskRatio), color: '#d62728' }],
      { percent: true },
    ),
    lineChart('Difficulty of selected tasks', [
      { label: 'mean difficulty', points: pts((s) => s.meanDifficulty), color: '#9467bd' },
    ]),
    lineChart(
      'Throughput',
      [{ label: 'rollouts / s', points: pts((s) => s.rolloutsPerSecond), color: '#ff7f0e' }],
      { includeZero: true },
    ),
    lineChart('Training loss', [{ label: 'loss', points: pts((s) => s.trainLoss), color: '#8c564b' }]),
  ].join('\n');
  const pct = (v: number | undefined) => formatValue(v, true);
  const rows = Object.entries({
    ...r.describe,
    ...Object.fromEntries(
      Object.entries(r.counters).map(([k, v]) => [k, Number.isInteger(v) ? String(v) : formatValue(v)]),
    ),
  })
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Winnow run ${esc(r.name)}</title>
<style>
${REPORT_CSS}
</style></head><body>
<h1>Winnow run: ${esc(r.name)}</h1>
<p>run ${esc(r.runId)} · ${h.length} steps · ${(r.durationMs / 1000).toFixed(1)} s · held-out accuracy ${pct(r.initialAccuracy)} → ${pct(r.finalAccuracy)}</p>
<table>${rows}</table>
${charts}
${toolsSection(r)}
${domainsSection(r)}
${evaluationSection(r)}
${bufferSection(r)}
${operatorsSection(r)}
${examplesSection(r)}
<h2>Config</h2>
<details class="config"><summary>the parsed config as JSON (${JSON.stringify(r.config, null, 2).split('\n').length} lines)</summary><pre>${esc(JSON.stringify(r.config, null, 2))}</pre></details>
</body></html>
`;
}
