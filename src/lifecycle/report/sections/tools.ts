import { TOOL_FIGURE_KEYS, TOOL_PREFIX } from '../../../agents/tool-figures.ts';
import { escapeHtml as esc, lineChart } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';

/**
 * Tool use of an agent run: the calls of each explorer step (all, invalid, tool errors, timeouts),
 * calls per episode and the invalid-call ratio as charts, then every `tool/…` figure's total or
 * mean over the run. Empty for a run without agent episodes.
 */

type Points = Array<[number, number]>;

function series(r: ReportInput, key: string): Points {
  const out: Points = [];
  for (const rec of r.history) {
    const v = rec[`${TOOL_PREFIX}${key}`];
    if (typeof v === 'number' && Number.isFinite(v)) out.push([rec.step, v]);
  }
  return out;
}

const num = (v: number) => (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toPrecision(4));

/** The run's figures: counts summed over steps, per-episode figures and ratios over all episodes. */
function totalsTable(r: ReportInput): string {
  const sum = (key: string) => series(r, key).reduce((a, [, v]) => a + v, 0);
  const episodes = sum('episodes');
  const calls = sum('calls');
  const rows = TOOL_FIGURE_KEYS.map((full) => {
    const key = full.slice(TOOL_PREFIX.length);
    let value: number;
    if (key === 'calls_per_episode') value = calls / episodes;
    else if (key === 'turns_per_episode') value = weighted(r, key) / episodes;
    else if (key === 'invalid_call_ratio') value = calls === 0 ? 0 : sum('invalid_calls') / calls;
    else value = sum(key);
    return `<tr data-metric="${esc(full)}"><th>${esc(key)}</th><td data-value="${value}">${num(value)}</td></tr>`;
  });
  return `<table class="tools"><tr><th>figure</th><th>whole run</th></tr>${rows.join('')}</table>`;
}

/** A per-episode mean summed back to its total over the run (mean × the step's episodes). */
function weighted(r: ReportInput, key: string): number {
  let total = 0;
  for (const rec of r.history) {
    const mean = rec[`${TOOL_PREFIX}${key}`];
    const n = rec[`${TOOL_PREFIX}episodes`];
    if (typeof mean === 'number' && typeof n === 'number') total += mean * n;
  }
  return total;
}

export function toolsSection(r: ReportInput): string {
  if (series(r, 'episodes').length === 0) return '';
  const charts = [
    lineChart(
      'Tool calls per step',
      [
        { label: 'calls', points: series(r, 'calls'), color: '#1f77b4' },
        { label: 'invalid calls', points: series(r, 'invalid_calls'), color: '#d62728' },
        { label: 'tool errors', points: series(r, 'errors'), color: '#ff7f0e' },
        { label: 'timeouts', points: series(r, 'timeouts'), color: '#9467bd' },
      ],
      { includeZero: true },
    ),
    lineChart(
      'Tool calls per episode',
      [{ label: 'calls / episode', points: series(r, 'calls_per_episode'), color: '#2ca02c' }],
      { includeZero: true },
    ),
    lineChart(
      'Invalid-call ratio',
      [{ label: 'invalid / calls', points: series(r, 'invalid_call_ratio'), color: '#d62728' }],
      { percent: true },
    ),
  ].join('\n');
  return `<h2>Tool use</h2>
<p>The tool calls of each explorer step’s agent episodes, before any experience operator (metrics.jsonl keys ${esc(TOOL_PREFIX)}…; docs/agents.md).</p>
${charts}
${totalsTable(r)}`;
}
