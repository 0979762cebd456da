// The real learner's regime table (issue #22, docs/selection-zoo.md): reads `bench curriculum
// --json` outputs, one or more per regime (runs of further selectors on the same seeds and pool
// merge in: a seed's random run is the same in each), and prints a Markdown table of rollouts to
// the target ÷ random [90%] per method and regime, the winner, the winner ÷ the runner-up and
// shared_ability_cand ÷ the best other method, all paired over seeds.
// Run: npx node bench/learning-curriculum/regime-table.ts 'LABEL=a.json[+b.json]' …
import { readFileSync } from 'node:fs';
import type { LearningCurve } from './learner.ts';
import { bootstrapRatio, commonTarget, fmtInterval, type Interval, stepsToTarget } from './stats.ts';

interface BenchJson {
  seeds: number[];
  targetShare: number;
  settings: { steps: number };
  pool: { tasks: number; startExtremeShare: number };
  curves: LearningCurve[];
}

export interface RegimeColumn {
  label: string;
  tasks: number;
  unusable: number;
  target: number;
  /** Rollouts to the target per method, in seed order. */
  rollouts: Map<string, number[]>;
}

const SUCCESSOR = 'shared_ability_cand';

export function regimeColumn(label: string, runs: readonly BenchJson[]): RegimeColumn {
  const first = runs[0]!;
  const curves = new Map<string, LearningCurve>();
  for (const r of runs) for (const c of r.curves) curves.set(`${c.selector}@${c.seed}`, c);
  const random = first.seeds.map((s) => curves.get(`random@${s}`)!);
  const target = commonTarget(random, first.targetShare);
  const names = [...new Set(runs.flatMap((r) => r.curves.map((c) => c.selector)))];
  const rollouts = new Map<string, number[]>();
  for (const name of names) {
    const per = first.seeds.map((s) => curves.get(`${name}@${s}`));
    if (per.some((c) => c === undefined)) continue;
    // A run that never reaches the target counts with its whole budget, as in the bench.
    rollouts.set(
      name,
      per.map((c) => stepsToTarget(c!, target)?.rollouts ?? c!.rollouts),
    );
  }
  return { label, tasks: first.pool.tasks, unusable: first.pool.startExtremeShare, target, rollouts };
}

const ratio = (a: number[], b: number[], salt: number): Interval => bootstrapRatio(a, b, salt);

export function regimeTable(cols: readonly RegimeColumn[]): string {
  const names = [...new Set(cols.flatMap((c) => [...c.rollouts.keys()]))];
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rows: string[][] = [
    ['pool: tasks, unusable at start', ...cols.map((c) => `${c.tasks}, ${(c.unusable * 100).toFixed(0)}%`)],
    ['target (held-out acc)', ...cols.map((c) => `${(c.target * 100).toFixed(1)}%`)],
  ];
  const ranked = cols.map((c) =>
    [...c.rollouts.entries()]
      .filter(([n]) => n !== 'random')
      .map(([n, r]) => ({ n, x: ratio(r, c.rollouts.get('random')!, 202) }))
      .sort((a, b) => a.x.ratio - b.x.ratio),
  );
  for (const name of names)
    rows.push([
      name,
      ...cols.map((c, i) => {
        const r = c.rollouts.get(name);
        if (!r) return 'not run';
        const best = ranked[i]![0]?.n === name ? ' *' : '';
        return `${fmtInterval(ratio(r, c.rollouts.get('random')!, 202))}${best}`;
      }),
    ]);
  rows.push(['winner', ...ranked.map((r) => r[0]?.n ?? '—')]);
  rows.push([
    'winner ÷ runner-up',
    ...cols.map((c, i) => {
      const [a, b] = ranked[i]!;
      return a && b ? `${fmtInterval(ratio(c.rollouts.get(a.n)!, c.rollouts.get(b.n)!, 303))} (${b.n})` : '—';
    }),
  ]);
  rows.push([
    `${SUCCESSOR} ÷ best other`,
    ...cols.map((c, i) => {
      const mine = c.rollouts.get(SUCCESSOR);
      const other = ranked[i]!.find((r) => r.n !== SUCCESSOR && r.n !== 'shared_ability');
      return mine && other ? `${fmtInterval(ratio(mine, c.rollouts.get(other.n)!, 404))} (${other.n})` : '—';
    }),
  ]);
  return [
    line(['method', ...cols.map((c) => c.label)]),
    line(['---', ...cols.map(() => '---')]),
    ...rows.map(line),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cols = process.argv.slice(2).map((arg) => {
    const at = arg.indexOf('=');
    const label = arg.slice(0, at);
    const files = arg.slice(at + 1).split('+');
    return regimeColumn(
      label,
      files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as BenchJson),
    );
  });
  process.stdout.write(`${regimeTable(cols)}\n`);
}
