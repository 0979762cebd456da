import type { StepMetrics } from '../../../operators/step-metrics.ts';
import { type Bar, barChart, escapeHtml as esc, REPORT_CSS } from '../../report/charts.ts';
import { usageLine, usageOf } from '../../run/run-usage.ts';
import type { TaskPipelineReport } from '../task-pipeline.ts';
import type { ReasonGroup, RejectionExample, StepRejections, TaskReportSummary } from './collector.ts';
import {
  type HistogramSummary,
  lengthBinRange,
  type ScoreHistogramSummary,
  scoreBinRange,
} from './histogram.ts';

/** What the report shows: the run's own report, what the collector gathered, and the config it ran. */
export type TaskReportInput = TaskPipelineReport & {
  summary: TaskReportSummary;
  config: unknown;
};

/** Reason groups shown expanded per step; the rest are one click away (`<details>`, no script). */
const OPEN_GROUPS = 5;
/** Three histograms side by side fit the page width. */
const HISTOGRAM_WIDTH = 360;

const EXTRA_CSS = `body{max-width:1160px} h2{font-size:16px;margin-top:28px} h3{font-size:14px;margin:16px 0 4px}
td.n,th.n{text-align:right;padding-right:16px} td.n,td.kept,td.step{white-space:nowrap} .ops td,.ops th{border-bottom:1px solid #eee;padding:3px 16px 3px 0}
.bar{display:inline-block;height:8px;background:#1f77b4;vertical-align:middle;margin-right:6px}
.muted{color:#777} code{font-size:12px;background:#f6f6f6;padding:1px 4px;border-radius:3px;word-break:break-all}
details{margin:4px 0 8px} summary{cursor:pointer} summary .cnt{color:#777;margin-left:8px}
div.hist{display:inline-block;vertical-align:top;width:${HISTOGRAM_WIDTH + 12}px} p.stats{font-size:12px;margin:0 12px 6px 0}
ul.ex{margin:4px 0 0 0;padding-left:20px} ul.ex li{margin-bottom:6px} .warn{color:#a15c00}`;

const n = (v: number) => v.toLocaleString('en-US');

function duration(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

const pct = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)}%`);

/** 1,000 → `1k`, 2,000,000 → `2M`: bin edges are round, so the short form is exact. */
function shortCount(v: number): string {
  if (v >= 1e9) return `${v / 1e9}G`;
  if (v >= 1e6) return `${v / 1e6}M`;
  if (v >= 1e3) return `${v / 1e3}k`;
  return String(v);
}

/** The span of non-empty bins, so a page of 80-character prompts is not 90 mostly empty bars. */
function occupied(bins: readonly number[]): [number, number] | undefined {
  const first = bins.findIndex((c) => c > 0);
  if (first < 0) return undefined;
  let last = bins.length - 1;
  while (bins[last] === 0) last--;
  return [first, last];
}

function lengthBars(h: HistogramSummary): Bar[] {
  const span = occupied(h.bins);
  if (!span) return [];
  const bars: Bar[] = [];
  for (let i = span[0]; i <= span[1]; i++) {
    const [lo, hi] = lengthBinRange(i);
    const range = hi === lo + 1 ? n(lo) : Number.isFinite(hi) ? `${n(lo)}–${n(hi - 1)}` : `≥ ${n(lo)}`;
    // Ticks only at round edges (40, 50, 100, 200…); the half steps (45, 150) say their range on hover.
    const round = lo < 10 || lo % 10 ** Math.floor(Math.log10(lo)) === 0;
    bars.push({ tick: round ? shortCount(lo) : '', range, count: h.bins[i]! });
  }
  return bars;
}

function scoreBars(h: ScoreHistogramSummary): Bar[] {
  if (h.count === h.below + h.above) return [];
  return h.bins.map((count, i) => {
    const [lo, hi] = scoreBinRange(i);
    const last = i === h.bins.length - 1;
    return {
      tick: i % 2 === 0 ? String(lo) : '',
      range: `${lo.toFixed(2)}–${hi.toFixed(2)}${last ? ' (inclusive)' : ''}`,
      count,
    };
  });
}

function stats(h: HistogramSummary, unit: string): string {
  if (h.count === 0) return '';
  const f = (v: number | null) => (v === null ? '—' : Number.isInteger(v) ? n(v) : v.toFixed(2));
  return `<p class="muted stats">${n(h.count)} tasks · min ${f(h.min)} · mean ${f(h.mean)} · max ${f(h.max)} ${esc(unit)}</p>`;
}

function header(r: TaskReportInput): string {
  const rows: Array<[string, string]> = [
    ['run', esc(r.runId)],
    ['input', r.files.map((f) => `<code>${esc(f)}</code>`).join('<br>')],
    ['rows read', n(r.rowsRead)],
    // No share of rows read: augmenting operators land more tasks than were read.
    ['tasks landed', n(r.tasksOut)],
    [
      'rows rejected',
      `${n(r.rejected)} <span class="muted">(${n(r.inputErrors)} could not be read or mapped)</span>`,
    ],
    [
      'table',
      `<code>${esc(r.table)}</code> version ${r.tableVersion}, tag <code>${esc(r.tag)}</code> · ${n(r.inserted)} inserted, ${n(r.updated)} updated, ${n(r.unchanged)} unchanged · ${n(r.totalTasks)} tasks in the table`,
    ],
    ['database', `<code>${esc(r.dbDir)}</code>`],
    ['seed', String(r.seed)],
    ['duration', duration(r.durationMs)],
  ];
  const usage = usageOf(r.steps);
  if (usage) rows.push(['model usage', esc(usageLine(usage).replace(/^LLM: /, 'LLM '))]);
  const warnings =
    r.warnings.length === 0
      ? ''
      : `<h2 id="warnings">Warnings</h2><ul>${r.warnings.map((w) => `<li class="warn">${esc(w)}</li>`).join('')}</ul>`;
  return `<h1>Winnow task pipeline: ${esc(r.name)}</h1>
<table>${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>
${warnings}`;
}

function topReasons(m: StepMetrics, limit = 3): string {
  const top = Object.entries(m.reasons)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit);
  const more = Object.keys(m.reasons).length - top.length;
  return (
    top.map(([reason, count]) => `${esc(reason)} <span class="muted">×${n(count)}</span>`).join('<br>') +
    (more > 0 ? `<br><span class="muted">+${more} more</span>` : '')
  );
}

function operatorTable(steps: readonly StepMetrics[]): string {
  const rows = steps
    .map((m) => {
      const kept = m.rowsIn === 0 ? 0 : m.rowsOut / m.rowsIn;
      const op = m.op === m.step ? '' : ` <span class="muted">${esc(m.op)}</span>`;
      return `<tr><td class="step"><code>${esc(m.step)}</code>${op}</td><td class="n">${n(m.rowsIn)}</td><td class="n">${n(m.rowsOut)}</td><td class="n">${n(m.dropped)}</td><td class="kept"><span class="bar" style="width:${Math.round(Math.min(kept, 1) * 60)}px"></span>${pct(m.rowsOut, m.rowsIn)}</td><td class="n">${m.ms.toFixed(1)}</td><td>${topReasons(m)}</td></tr>`;
    })
    .join('\n');
  return `<h2 id="operators">Operators</h2>
<table class="ops"><tr><th>step</th><th class="n">in</th><th class="n">out</th><th class="n">dropped</th><th>out / in</th><th class="n">ms</th><th>top reasons</th></tr>
${rows}</table>`;
}

function example(e: RejectionExample): string {
  const where = e.file === '' ? '' : `${esc(e.file)}${e.row >= 0 ? `:${e.row}` : ''}`;
  const id = e.rowId === '' ? '' : ` id <code>${esc(e.rowId)}</code>`;
  const payload = e.payload === '' ? '' : `<br><code>${esc(e.payload)}</code>`;
  return `<li><span class="muted">${where || '(no source)'}${id}</span><br>${esc(e.reason)}${payload}</li>`;
}

function reasonGroup(g: ReasonGroup, open: boolean): string {
  return `<details${open ? ' open' : ''}><summary>${esc(g.reason)}<span class="cnt">×${n(g.count)}</span></summary><ul class="ex">${g.examples.map(example).join('')}</ul></details>`;
}

function rejections(steps: readonly StepRejections[], total: number): string {
  if (steps.length === 0)
    return '<h2 id="rejected">Rejected rows</h2><p class="empty">no rows were rejected</p>';
  const body = steps
    .map(
      (s) =>
        `<h3><code>${esc(s.step)}</code> <span class="muted">${n(s.count)} ${s.count === 1 ? 'row' : 'rows'}</span></h3>${s.reasons.map((g, i) => reasonGroup(g, i < OPEN_GROUPS)).join('')}`,
    )
    .join('\n');
  return `<h2 id="rejected">Rejected rows <span class="muted">${n(total)}</span></h2>
<p class="muted">Reasons are grouped with ids and numbers blanked; each group shows up to three rows as recorded in the rejected table.</p>
${body}`;
}

function landedTasks(s: TaskReportSummary): string {
  const d = s.difficulty;
  // Said only when some landed tasks are not in the difficulty chart, and why.
  const notDrawn = [
    s.withoutDifficulty === 0 ? '' : `${n(s.withoutDifficulty)} without a difficulty`,
    d.below + d.above === 0 ? '' : `${n(d.below)} below 0 and ${n(d.above)} above 1`,
  ].filter((x) => x !== '');
  const notDrawnNote =
    notDrawn.length === 0 ? '' : `<p class="muted stats">not drawn: ${notDrawn.join(' · ')}</p>`;
  const chart = (svg: string, caption: string) => `<div class="hist">${svg}${caption}</div>`;
  const width = HISTOGRAM_WIDTH;
  return `<h2 id="landed">Landed tasks <span class="muted">${n(s.tasks)}</span></h2>
<div>
${chart(barChart('Prompt length (characters)', lengthBars(s.promptChars), { width, xLabel: 'characters (log-scale bins)' }), stats(s.promptChars, 'characters'))}
${chart(barChart('Prompt length (words)', lengthBars(s.promptWords), { width, xLabel: 'words (log-scale bins)', color: '#2ca02c' }), stats(s.promptWords, 'words'))}
${chart(barChart('Difficulty (features.difficulty)', scoreBars(d), { width, xLabel: 'difficulty', color: '#9467bd' }), stats(d, '') + notDrawnNote)}
</div>`;
}

function tasksets(s: TaskReportSummary): string {
  if (s.tasksets.length === 0) return '';
  const max = Math.max(...s.tasksets.map((t) => t.count));
  const rows = s.tasksets
    .map(
      (t) =>
        `<tr><td><code>${esc(t.taskset)}</code></td><td class="n">${n(t.count)}</td><td><span class="bar" style="width:${Math.round((t.count / max) * 200)}px"></span>${pct(t.count, s.tasks)}</td></tr>`,
    )
    .join('');
  return `<h2 id="tasksets">Tasksets</h2><table class="ops"><tr><th>taskset</th><th class="n">tasks</th><th>share</th></tr>${rows}</table>`;
}

/**
 * The task pipeline report: one offline HTML page (inline CSS and SVG, no scripts, no network)
 * with the run's numbers, what each operator kept and dropped and why, and the shape of the
 * landed tasks. Every value that came from data or config is escaped.
 */
export function renderTaskReport(r: TaskReportInput): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Winnow task pipeline ${esc(r.name)}</title>
<style>
${REPORT_CSS}
${EXTRA_CSS}
</style></head><body>
${header(r)}
${operatorTable(r.steps)}
${rejections(r.summary.steps, r.summary.rejected)}
${landedTasks(r.summary)}
${tasksets(r.summary)}
<h2 id="config">Config</h2><pre>${esc(JSON.stringify(r.config, null, 2) ?? 'undefined')}</pre>
</body></html>
`;
}
