import { EXP_PREFIX, EXP_WARNINGS_KEY } from '../../run/operator-report.ts';
import { escapeHtml as esc } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';

/** Warning texts listed in the report (every warning is counted in the table). */
const LISTED_WARNINGS = 20;

interface MetricSeries {
  values: Array<[number, number]>;
}

/** Operator step → metric → values over steps, from the `exp/<step>/<metric>` keys. */
export function operatorMetrics(r: ReportInput): Map<string, Map<string, MetricSeries>> {
  const out = new Map<string, Map<string, MetricSeries>>();
  for (const rec of r.history) {
    for (const [key, v] of Object.entries(rec)) {
      if (!key.startsWith(EXP_PREFIX) || key === EXP_WARNINGS_KEY || typeof v !== 'number') continue;
      // Step names may hold '/' (branches); metric names do not.
      const cut = key.lastIndexOf('/');
      const step = key.slice(EXP_PREFIX.length, cut);
      const metric = key.slice(cut + 1);
      const byMetric = out.get(step) ?? new Map<string, MetricSeries>();
      const s = byMetric.get(metric) ?? { values: [] };
      s.values.push([rec.step, v]);
      byMetric.set(metric, s);
      out.set(step, byMetric);
    }
  }
  return out;
}

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(4));

/**
 * Experience operators: for each operator step, a table of its metrics over the run's steps (last,
 * mean, min, max), then the warnings the operators raised, with the step they came from.
 */
export function operatorsSection(r: ReportInput): string {
  const ops = operatorMetrics(r);
  if (ops.size === 0) return '';
  const tables = [...ops]
    .map(([step, metrics]) => {
      const rows = [...metrics]
        .map(([metric, s]) => {
          const ys = s.values.map(([, y]) => y);
          const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
          const last = ys[ys.length - 1]!;
          return `<tr data-metric="${esc(`${EXP_PREFIX}${step}/${metric}`)}"><th>${esc(metric)}</th><td data-value="${last}">${num(last)}</td><td>${num(mean)}</td><td>${num(Math.min(...ys))}</td><td>${num(Math.max(...ys))}</td><td>${ys.length}</td></tr>`;
        })
        .join('');
      return `<h3>${esc(step)}</h3>
<table class="operator" data-step="${esc(step)}"><tr><th>metric</th><th>last</th><th>mean</th><th>min</th><th>max</th><th>steps</th></tr>${rows}</table>`;
    })
    .join('\n');
  const warnings = r.history.flatMap((rec) => {
    const w = rec[EXP_WARNINGS_KEY];
    return Array.isArray(w) ? w.map((text) => ({ step: rec.step, text: String(text) })) : [];
  });
  const listed = warnings.slice(0, LISTED_WARNINGS);
  const warningList =
    warnings.length === 0
      ? '<p class="empty">no operator warnings</p>'
      : `<ul class="warnings">${listed.map((w) => `<li>step ${w.step}: ${esc(w.text)}</li>`).join('')}</ul>${warnings.length > listed.length ? `<p>… ${warnings.length - listed.length} more in metrics.jsonl (${EXP_WARNINGS_KEY})</p>` : ''}`;
  return `<h2>Experience operators</h2>
<p>Each operator’s numbers per explorer step (metrics.jsonl keys ${esc(EXP_PREFIX)}&lt;step&gt;/&lt;metric&gt;).</p>
${tables}
<h3>Operator warnings</h3>
${warningList}`;
}
