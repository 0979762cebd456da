import { chartScriptSource, escapeHtml as esc, formatValue, lineChart, REPORT_CSS } from '../charts.ts';
import { comparisonFigure, RUN_COLORS } from './comparison-figure.ts';
import type { ComparedRun, RunComparison } from './run-comparison-schema.ts';

/** The id of the <script type="application/json"> element holding the comparison's data. */
export const COMPARISON_DATA_ID = 'winnow-comparison';

const PAGE_CSS = `${REPORT_CSS}
body{max-width:1280px} .compare{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
.compare>.chart{flex:0 0 480px;max-width:480px} .compare>.diff{flex:1 1 420px;min-width:0}
.controls{margin:8px 0} .controls label{margin-right:12px} table.values td,table.values th{font-variant-numeric:tabular-nums}
table.diff td{font-family:ui-monospace,monospace;font-size:12px;max-width:260px;overflow-wrap:anywhere}
tr.meaning th{color:#b00} .note{color:#555}`;

/** JSON inside <script>: `<` escaped so no value can close the element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function runsTable(c: RunComparison): string {
  const row = (r: ComparedRun, i: number) => {
    const h = r.headline;
    const planned = r.plannedSteps === null ? '' : ` of ${r.plannedSteps}`;
    return `<tr data-run="${esc(r.id)}"><td><label><input type="checkbox" data-run="${esc(r.id)}" checked> <span style="color:${RUN_COLORS[i % RUN_COLORS.length]}">■</span> ${esc(r.id)}</label></td><td>${esc(r.name)}</td><td title="${esc(r.statusNote ?? '')}">${esc(r.status)}</td><td>${r.steps}${planned}</td><td>${formatValue(h.initialAccuracy, true)} → ${formatValue(h.finalAccuracy, true)}</td><td>${formatValue(h.finalMeanReward)}</td><td>${h.durationMs === null ? '—' : `${(h.durationMs / 1000).toFixed(1)} s`}</td><td><code>${esc(r.dir)}</code></td></tr>`;
  };
  return `<table class="runs"><tr><th>run</th><th>name</th><th>status</th><th>steps</th><th>held-out accuracy</th><th>last mean reward</th><th>duration</th><th>folder</th></tr>${c.runs.map(row).join('')}</table>`;
}

function diffTable(c: RunComparison): string {
  if (c.runs.length < 2) return '';
  if (c.configDiff.length === 0) return '<h2>Config differences</h2><p>The configs are the same.</p>';
  const meaning = c.configDiff.filter((d) => d.changesResults).length;
  const head = c.runs.map((r) => `<th>${esc(r.id)}</th>`).join('');
  const rows = c.configDiff
    .map(
      (d) =>
        `<tr class="${d.changesResults ? 'meaning' : 'harmless'}" data-path="${esc(d.path)}"><th>${esc(d.path)}</th>${d.values.map((v) => `<td>${v === null ? '<span class="empty">absent</span>' : esc(v)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<h2>Config differences</h2>
<p class="note">${c.configDiff.length} key(s) differ; ${meaning} change what a run computes (red), the rest only how long it runs or how it reports.</p>
<table class="diff"><tr><th>key</th>${head}</tr>${rows}</table>`;
}

/** The first metric a reader wants: held-out accuracy when any run measured it, else mean reward, else the first. */
function firstMetric(c: RunComparison): string {
  for (const k of ['accuracy', 'meanReward']) if (c.metrics.some((m) => m.key === k)) return k;
  return c.metrics[0]?.key ?? '';
}

/** The browser side: the chart code, the figure, and the wiring of the metric picker and run boxes. */
function pageScript(): string {
  return `${chartScriptSource()}
${comparisonFigure.toString()}
(function () {
  var data = JSON.parse(document.getElementById(${JSON.stringify(COMPARISON_DATA_ID)}).textContent);
  var colors = ${JSON.stringify(RUN_COLORS)};
  var pick = document.getElementById('metric');
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-run]'));
  var lib = { lineChart: lineChart, escapeHtml: escapeHtml, formatValue: formatValue };
  function draw() {
    var shown = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.getAttribute('data-run'); });
    document.getElementById('figure').innerHTML = comparisonFigure(data, pick.value, shown, colors, lib);
  }
  pick.addEventListener('change', draw);
  boxes.forEach(function (b) { b.addEventListener('change', draw); });
})();`;
}

/**
 * `winnow compare`'s page: one HTML file that works offline (no network, the chart code inline).
 * The runs with status and headline numbers, a chart overlaying any metric of the chosen runs over
 * steps with its values, the configs diffed beside it, and the whole comparison as JSON.
 */
export function renderComparisonHtml(c: RunComparison): string {
  const key = firstMetric(c);
  const options = c.metrics
    .map((m) => `<option value="${esc(m.key)}"${m.key === key ? ' selected' : ''}>${esc(m.label)}</option>`)
    .join('');
  const figure =
    key === ''
      ? '<p class="empty">no step records yet</p>'
      : comparisonFigure(
          c,
          key,
          c.runs.map((r) => r.id),
          RUN_COLORS,
          { lineChart, escapeHtml: esc, formatValue },
        );
  const missing =
    c.missing.length === 0
      ? ''
      : `<p class="note">Not recorded by these runs: ${c.missing.map((m) => `${esc(m.label)} (${esc(m.reason)})`).join('; ')}.</p>`;
  const title = `Winnow runs compared: ${c.runs.map((r) => r.id).join(' vs ')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
${PAGE_CSS}
</style></head><body>
<h1>${esc(title)}</h1>
${runsTable(c)}
<div class="compare"><div class="chart">
<h2>Metrics over steps</h2>
<div class="controls"><label>metric <select id="metric">${options}</select></label></div>
<div id="figure">${figure}</div>
${missing}
</div><div class="diff">${diffTable(c)}</div></div>
<script type="application/json" id="${COMPARISON_DATA_ID}">${scriptJson(c)}</script>
<script>
${pageScript()}
</script>
</body></html>
`;
}
