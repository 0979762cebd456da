import { fmtInterval } from '../learning-curriculum/stats.ts';
import { fmtDiff } from '../protocol/format.ts';
import type { SweepPointResult, SweepResult } from './sweep.ts';

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** A Markdown table (the sweep tables go into docs/selection-zoo.md as printed). */
function markdown(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function aucCell(p: SweepPointResult, name: string): string {
  const m = p.auc.find((x) => x.selector === name);
  if (!m) return 'skipped';
  return `${(m.auc * 100).toFixed(1)} ${fmtDiff(m.vsRandom)} ${m.rank === null ? '(unranked)' : `#${m.rank}`}`;
}

/** One table per factor: a column per point, a row per method (rollouts ÷ random [90%]), then the winner. */
export function formatSweep(result: SweepResult): string {
  const parts: string[] = [];
  for (const factor of result.factors) {
    const points = result.points.filter((p) => p.factor === factor);
    if (points.length === 0) continue;
    const methods = [...new Set(points.flatMap((p) => p.methods.map((m) => m.selector)))];
    const cell = (p: SweepPointResult, name: string) => {
      const m = p.methods.find((x) => x.selector === name);
      if (!m) return 'skipped';
      const star = p.winner === name ? ' *' : '';
      return `${m.reached < m.runs ? '≥' : ''}${fmtInterval(m.rolloutsRatio)}${star}`;
    };
    const head = ['method', ...points.map((p) => `${p.label}${p.isDefault ? ' (default)' : ''}`)];
    const rows = [
      ['start: too easy / too hard', ...points.map((p) => `${pct(p.startEasy)} / ${pct(p.startHard)}`)],
      ['target (random final acc)', ...points.map((p) => pct(p.target))],
      ...methods.map((name) => [name, ...points.map((p) => cell(p, name))]),
      ['winner', ...points.map((p) => p.winner)],
      ['winner ÷ runner-up', ...points.map((p) => `${fmtInterval(p.winnerOverRunnerUp)} (${p.runnerUp})`)],
      [
        "Winnow's best ÷ best other",
        ...points.map((p) =>
          p.winnowOverBestOther
            ? `${fmtInterval(p.winnowOverBestOther.ratio)} (${p.winnowOverBestOther.winnow} ÷ ${p.winnowOverBestOther.other})`
            : '—',
        ),
      ],
      [
        'shared_ability ÷ best other',
        ...points.map((p) =>
          p.sharedAbilityOverBestOther
            ? `${fmtInterval(p.sharedAbilityOverBestOther.ratio)} (${p.sharedAbilityOverBestOther.other})`
            : '—',
        ),
      ],
    ];
    parts.push(
      `### sweep: ${factor} — rollouts to random's final accuracy ÷ random's [90%], * = fewest`,
      markdown(head, rows),
    );
    parts.push(
      '',
      `### sweep: ${factor} — the protocol: AUC of held-out accuracy against rollouts (%), AUC − random [90%], rank`,
      markdown(head, [
        ...methods.map((name) => [name, ...points.map((p) => aucCell(p, name))]),
        ['AUC winner', ...points.map((p) => p.aucWinner.selector)],
        [
          'winner − runner-up [90%]',
          ...points.map((p) => `${fmtDiff(p.aucWinner.overRunnerUp)} (${p.aucWinner.overRunnerUp.other})`),
        ],
      ]),
    );
    for (const p of points)
      for (const s of p.skipped) parts.push(`(${p.label}: ${s.selector} skipped: ${s.reason})`);
    parts.push('');
  }
  parts.push(
    `(seeds ${result.seeds.join(',')}; ${result.steps} steps × ${result.batch} tasks; ${(result.elapsedMs / 1000).toFixed(0)} s)`,
  );
  return parts.join('\n');
}

/**
 * Where a method stands at a point by mean AUC among the ranked methods: its rank when ranked; an
 * unranked one (tuned by another rule) gets the place it would take, marked "(unranked)".
 */
export function aucPlace(p: SweepPointResult, name: string): string {
  const m = p.auc.find((x) => x.selector === name);
  if (!m) return 'not run';
  if (m.rank !== null) return `#${m.rank}`;
  const ahead = p.auc.filter((x) => x.rank !== null && x.auc > m.auc).length;
  return `(#${ahead + 1}, unranked)`;
}

/**
 * One row per sweep point (docs/selection-zoo.md's sweep table): the AUC winner and runner-up with
 * the winner's paired margin, and where each of `winnow` (Winnow's methods) stands by AUC.
 */
export function sweepSummaryMarkdown(result: SweepResult, winnow: readonly string[]): string {
  const rows = result.points.map((p) => {
    const auc = (name: string) =>
      `${((p.auc.find((x) => x.selector === name)?.auc ?? Number.NaN) * 100).toFixed(1)}`;
    const w = p.aucWinner;
    return [
      p.factor,
      `${p.label}${p.isDefault ? ' (default)' : ''}`,
      `${w.selector} ${auc(w.selector)}`,
      `${w.overRunnerUp.other} ${auc(w.overRunnerUp.other)}`,
      fmtDiff(w.overRunnerUp),
      ...winnow.map((name) => aucPlace(p, name)),
    ];
  });
  const head = [
    'factor',
    'point',
    'AUC winner (AUC %)',
    'runner-up (AUC %)',
    'winner − runner-up [90%]',
    ...winnow,
  ];
  return markdown(head, rows);
}
