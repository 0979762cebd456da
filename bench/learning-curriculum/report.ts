// bench curriculum's result and its text table: apart from main.ts so that html.ts (which main.ts
// calls) can print the same table without importing main.ts back.
import { formatTable } from '../../src/cli/table.ts';
import type { StepOverhead } from '../selection/zoo-overhead.ts';
import type { LearnerSettings, LearningCurve } from './learner.ts';
import { fmtInterval, type Interval, mean } from './stats.ts';

export interface SelectorSummary {
  selector: string;
  description: string;
  reached: number;
  runs: number;
  stepsRatio: Interval;
  rolloutsRatio: Interval;
  effective: number;
  effectiveRatio: Interval;
  finalAccuracy: number;
  finalRatio: Interval;
  finalByLevel: Record<string, number>;
  /** Share of the rolled-out groups per level, over all runs. */
  pickedByLevel: Record<string, number>;
  distinct: number;
  seconds: number;
}

export type CurriculumResult = {
  seeds: number[];
  settings: LearnerSettings;
  target: number;
  targetShare: number;
  targetPassRate: number;
  rho: number;
  pool: {
    tasks: number;
    levels: string[];
    startExtremeShare: number;
    startNoGradientShare: number;
    startPassRateByLevel: Record<string, number>;
  };
  summary: SelectorSummary[];
  pairs: Record<string, Interval>;
  overhead: StepOverhead[];
  curves: LearningCurve[];
};

export function textReport(r: CurriculumResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const main = formatTable(
    [
      'selector',
      'reached',
      'steps ÷ random [90%]',
      'rollouts ÷ random [90%]',
      'effective ratio',
      'eff. ÷ random [90%]',
      'final acc',
      'distinct tasks',
      's/run',
    ],
    r.summary.map((s) => [
      s.selector,
      `${s.reached}/${s.runs}`,
      fmtInterval(s.stepsRatio),
      fmtInterval(s.rolloutsRatio),
      pct(s.effective),
      fmtInterval(s.effectiveRatio),
      pct(s.finalAccuracy),
      s.distinct.toFixed(0),
      s.seconds.toFixed(1),
    ]),
  );
  const levels = formatTable(
    ['level', 'start p', ...r.summary.map((s) => s.selector)],
    r.pool.levels.map((l) => [
      l,
      (r.pool.startPassRateByLevel[l] ?? 0).toFixed(2),
      ...r.summary.map((s) => pct(s.finalByLevel[l] ?? 0)),
    ]),
  );
  const picked = formatTable(
    ['level', ...r.summary.map((s) => s.selector)],
    r.pool.levels.map((l) => [l, ...r.summary.map((s) => pct(s.pickedByLevel[l] ?? 0))]),
  );
  const steps = r.curves[0]?.points.map((p) => p.step) ?? [];
  const curveRows = steps.map((step, k) => [
    String(step),
    ...r.summary.map((s) => {
      const mine = r.curves.filter((c) => c.selector === s.selector);
      return pct(mean(mine.map((c) => c.points[k]?.accuracy ?? Number.NaN)));
    }),
  ]);
  const curvesTable = formatTable(['update', ...r.summary.map((s) => s.selector)], curveRows);
  const pairs = Object.entries(r.pairs).map(([k, v]) => `${k} steps: ${fmtInterval(v)}`);
  return [
    main,
    '',
    'final held-out accuracy (greedy) per level; start p = mean exact pass rate of the warm start (T = 1)',
    levels,
    '',
    'learning curves: mean held-out accuracy (all levels) over the seeds',
    curvesTable,
    '',
    'share of rolled-out groups per level (where each selector spent its rollouts)',
    picked,
    ...(pairs.length ? ['', ...pairs] : []),
    ...(r.overhead.length
      ? [
          '',
          `selector time per step at ${r.overhead[0]!.tasks} simulated tasks (rollouts excluded)`,
          formatTable(
            ['selector', 'median ms/step', 'init ms', 'state bytes/task'],
            r.overhead.map((o) => [
              o.selector,
              o.medianMs.toFixed(2),
              o.initMs.toFixed(0),
              o.stateBytesPerTask.toFixed(1),
            ]),
          ),
        ]
      : []),
    '',
    `(seeds ${r.seeds.join(',')}; ${r.settings.steps} updates, each on ${r.settings.trainGroups} groups with a gradient, found in rounds of ` +
      `${r.settings.batchTasks} tasks × ${r.settings.repeat} rollouts (at most ${r.settings.maxRounds} rounds); selectors aim at p* = ${r.targetPassRate}, bots_ref ρ = ${r.rho}; start held-out accuracy ${pct(r.curves[0]?.points[0]?.accuracy ?? 0)}; ` +
      `target ${pct(r.target)} = start + ${r.targetShare} × random's mean gain; a run that never reaches it counts its whole budget; ` +
      `pool ${r.pool.tasks} tasks, ${pct(r.pool.startExtremeShare)} with start pass rate < 0.05 or > 0.95)`,
  ].join('\n');
}
