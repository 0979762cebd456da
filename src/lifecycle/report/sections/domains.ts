import { escapeHtml as esc, formatValue, lineChart } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';
import { evaluationCurves } from './evaluation.ts';

const DOMAIN_KEY = /^accuracy\/(.+)$/;
const PALETTE = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

interface DomainCurve {
  domain: string;
  source: string;
  points: Array<[number, number]>;
}

/**
 * Accuracy per domain: `accuracy/<domain>` keys of the step records where a run records them, and
 * each evaluation set's pass@k (sets are how a config splits its held-out tasks by domain).
 */
export function domainCurves(r: ReportInput): DomainCurve[] {
  const byKey = new Map<string, DomainCurve>();
  for (const rec of r.history)
    for (const [key, v] of Object.entries(rec)) {
      const m = DOMAIN_KEY.exec(key);
      if (!m || typeof v !== 'number' || !Number.isFinite(v)) continue;
      const c = byKey.get(key) ?? { domain: m[1]!, source: key, points: [] };
      c.points.push([rec.step, v]);
      byKey.set(key, c);
    }
  const sets = evaluationCurves(r)
    .filter((c) => c.pass.length > 0)
    .map((c) => ({ domain: c.set, source: `eval/${c.set}/pass@${c.k}`, points: c.pass }));
  return [...byKey.values(), ...sets];
}

/** A table (first, last, best, change) and one chart overlaying every domain. */
export function domainsSection(r: ReportInput): string {
  const curves = domainCurves(r);
  if (curves.length === 0) return '';
  const rows = curves
    .map((c) => {
      const first = c.points[0]![1];
      const last = c.points[c.points.length - 1]![1];
      const best = Math.max(...c.points.map(([, y]) => y));
      const change = last - first;
      return `<tr data-domain="${esc(c.domain)}" data-last="${last}"><td>${esc(c.domain)}</td><td><code>${esc(c.source)}</code></td><td>${formatValue(first, true)}</td><td>${formatValue(last, true)}</td><td>${formatValue(best, true)}</td><td>${change >= 0 ? '+' : '−'}${(Math.abs(change) * 100).toFixed(1)} pt</td></tr>`;
    })
    .join('');
  const chart = lineChart(
    'Accuracy by domain',
    curves.map((c, i) => ({ label: c.domain, points: c.points, color: PALETTE[i % PALETTE.length]! })),
    { percent: true },
  );
  return `<h2>Accuracy by domain</h2>
<table class="domains"><tr><th>domain</th><th>from</th><th>first</th><th>last</th><th>best</th><th>change</th></tr>${rows}</table>
${chart}`;
}
