import { escapeHtml as esc } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';

/** Steps whose examples the report shows (the run record keeps every step's). */
const SHOWN_STEPS = 20;

/** The best and the worst rollout of the last steps: reward, task, prompt and response excerpts. */
export function examplesSection(r: ReportInput): string {
  const all = r.rolloutExamples ?? [];
  if (all.length === 0) return '';
  const steps = [...new Set(all.map((x) => x.step))];
  const shown = new Set(steps.slice(-SHOWN_STEPS));
  const rows = all
    .filter((x) => shown.has(x.step))
    .map(
      (x) =>
        `<tr data-step="${x.step}" data-kind="${x.kind}"><td>${x.step}</td><td>${x.kind}</td><td>${x.reward.toPrecision(4)}</td><td>${esc(x.taskId)}</td><td><code>${esc(x.prompt)}</code></td><td><code>${esc(x.response)}</code></td></tr>`,
    )
    .join('');
  const note =
    steps.length > shown.size ? ` (the last ${shown.size} of ${steps.length} steps; run.json has all)` : '';
  return `<h2>Rollout examples</h2>
<p>The best and the worst rollout of each step${note}.</p>
<table class="examples"><tr><th>step</th><th></th><th>reward</th><th>task</th><th>prompt</th><th>response</th></tr>${rows}</table>`;
}
