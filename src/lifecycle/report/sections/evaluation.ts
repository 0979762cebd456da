import { escapeHtml as esc, lineChart } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';

const EVAL_KEY = /^eval\/(.+)\/(mean|pass)@(\d+)$/;

interface SetCurves {
  set: string;
  k: number;
  mean: Array<[number, number]>;
  pass: Array<[number, number]>;
}

/** Every evaluation set found in the step records (and the step-0 numbers), in first-seen order. */
export function evaluationCurves(r: ReportInput): SetCurves[] {
  const sets = new Map<string, SetCurves>();
  const add = (step: number, key: string, value: unknown) => {
    const m = EVAL_KEY.exec(key);
    if (!m || typeof value !== 'number' || !Number.isFinite(value)) return;
    const [, set, which, k] = m as unknown as [string, string, 'mean' | 'pass', string];
    const id = `${set}@${k}`;
    let c = sets.get(id);
    if (!c) {
      c = { set, k: Number(k), mean: [], pass: [] };
      sets.set(id, c);
    }
    c[which].push([step, value]);
  };
  for (const [key, v] of Object.entries(r.initialEvaluation ?? {})) add(0, key, v);
  for (const rec of r.history) for (const [key, v] of Object.entries(rec)) add(rec.step, key, v);
  return [...sets.values()];
}

const cell = (key: string, p: [number, number] | undefined) =>
  p === undefined
    ? '<td>—</td>'
    : `<td data-key="${esc(key)}" data-step="${p[0]}" data-value="${p[1]}">${p[1].toFixed(3)}</td>`;

/**
 * The evaluation sets: one chart per set (mean@k and pass@k over steps) and a table of the first
 * and last measurement of each. `data-value` holds the exact number, for scripts and tests.
 */
export function evaluationSection(r: ReportInput): string {
  const curves = evaluationCurves(r);
  if (curves.length === 0) return '';
  const rows = curves
    .map((c) => {
      const mk = `eval/${c.set}/mean@${c.k}`;
      const pk = `eval/${c.set}/pass@${c.k}`;
      return `<tr data-set="${esc(c.set)}"><td>${esc(c.set)}</td><td>${c.k}</td>${cell(mk, c.mean[0])}${cell(mk, c.mean.at(-1))}${cell(pk, c.pass[0])}${cell(pk, c.pass.at(-1))}</tr>`;
    })
    .join('');
  const charts = curves
    .map((c) =>
      lineChart(
        `Evaluation set ${c.set} (k = ${c.k})`,
        [
          { label: `mean@${c.k}`, points: c.mean, color: '#2ca02c' },
          { label: `pass@${c.k}`, points: c.pass, color: '#1f77b4' },
        ],
        { percent: true },
      ),
    )
    .join('\n');
  return `<h2>Evaluation sets</h2>
<p>mean@k: mean reward of k samples per task. pass@k: share of tasks with a correct sample among k (unbiased estimator).</p>
<table class="evaluation"><tr><th>set</th><th>k</th><th>mean@k first</th><th>mean@k last</th><th>pass@k first</th><th>pass@k last</th></tr>${rows}</table>
${charts}`;
}
