// bench curriculum's result and its text report: apart from main.ts so that html.ts (which main.ts
// calls) can print the same report without importing main.ts back. The ranking is the protocol's
// (bench/protocol); the diagnostics below it explain where each method spent its rollouts.
import { formatTable } from '../../src/cli/table.ts';
import { accuracyAt, type BudgetCurve } from '../protocol/curve.ts';
import type { ProtocolReport } from '../protocol/evaluate.ts';
import { formatProtocolTable, orderedMethods } from '../protocol/format.ts';
import type { StepOverhead } from '../selection/zoo-overhead.ts';
import type { LearnerSettings, LearningCurve } from './learner.ts';
import { mean } from './stats.ts';

/** What each method did, beside the ranking (not part of it). */
export interface SelectorSummary {
  selector: string;
  description: string;
  runs: number;
  /** Share of rolled-out groups with mixed rewards (a GRPO gradient). */
  effective: number;
  /** Held-out accuracy at the run's end (per level: the mean over seeds). */
  finalAccuracy: number;
  finalByLevel: Record<string, number>;
  /** Share of the rolled-out groups per level, over all runs. */
  pickedByLevel: Record<string, number>;
  distinct: number;
  /** Mean gradient updates a run took to spend its budget. */
  updates: number;
  seconds: number;
}

export type CurriculumResult = {
  learner: string;
  seeds: number[];
  settings: LearnerSettings;
  targetPassRate: number;
  rho: number;
  referenceRollouts: number;
  pool: {
    tasks: number;
    levels: string[];
    startExtremeShare: number;
    startNoGradientShare: number;
    startPassRateByLevel: Record<string, number>;
  };
  protocol: ProtocolReport;
  summary: SelectorSummary[];
  overhead: StepOverhead[];
  curves: LearningCurve[];
};

/** The run's curve as the protocol reads it. */
export function budgetCurve(c: LearningCurve): BudgetCurve {
  return {
    method: c.selector,
    seed: c.seed,
    points: c.points.map((p) => ({ rollouts: p.rollouts, updates: p.updates, accuracy: p.accuracy })),
  };
}

/** Shares of each seed's budget the curves table reads the mean accuracy at. */
export const CURVE_SHARES = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Mean held-out accuracy over the seeds at each share of the seed's budget (uncharged curves). */
export function meanCurve(r: CurriculumResult, selector: string, level?: string): number[] {
  const mine = r.curves.filter((c) => c.selector === selector);
  return CURVE_SHARES.map((share) =>
    mean(
      mine.map((c) => {
        const b = budgetCurve(c);
        if (level !== undefined)
          b.points = c.points.map((p, k) => ({ ...b.points[k]!, accuracy: p.levels[level] ?? Number.NaN }));
        return accuracyAt(b, share * (r.protocol.budgetPerSeed[String(c.seed)] ?? 0));
      }),
    ),
  );
}

export function textReport(r: CurriculumResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const order = orderedMethods(r.protocol).map((m) => m.method);
  const summary = order.map((n) => r.summary.find((s) => s.selector === n)!);
  const diag = formatTable(
    ['method', 'effective ratio', 'final acc', 'updates', 'distinct tasks', 's/run'],
    summary.map((s) => [
      s.selector,
      pct(s.effective),
      pct(s.finalAccuracy),
      s.updates.toFixed(1),
      s.distinct.toFixed(0),
      s.seconds.toFixed(1),
    ]),
  );
  const levels = formatTable(
    ['level', 'start p', ...order],
    r.pool.levels.map((l) => [
      l,
      (r.pool.startPassRateByLevel[l] ?? 0).toFixed(2),
      ...summary.map((s) => pct(s.finalByLevel[l] ?? 0)),
    ]),
  );
  const picked = formatTable(
    ['level', ...order],
    r.pool.levels.map((l) => [l, ...summary.map((s) => pct(s.pickedByLevel[l] ?? 0))]),
  );
  const curves = order.map((n) => meanCurve(r, n));
  const curvesTable = formatTable(
    ['share of budget', ...order],
    CURVE_SHARES.map((share, k) => [`${share * 100}%`, ...curves.map((c) => pct(c[k]!))]),
  );
  return [
    `learner ${r.learner}: ${r.pool.tasks} tasks, ${pct(r.pool.startExtremeShare)} with start pass rate < 0.05 or > 0.95`,
    formatProtocolTable(r.protocol),
    '',
    'diagnostics (not the ranking): share of groups with a gradient, held-out accuracy at the run end, updates taken',
    diag,
    '',
    'final held-out accuracy (greedy) per level; start p = mean exact pass rate of the warm start (T = 1)',
    levels,
    '',
    "learning curves: mean held-out accuracy (all levels) at shares of each seed's budget (information charges not shown)",
    curvesTable,
    '',
    'share of rolled-out groups per level (where each selector spent its rollouts)',
    picked,
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
    `(random: ${r.settings.steps} updates, each on ${r.settings.trainGroups} groups with a gradient, found in rounds of ` +
      `${r.settings.batchTasks} tasks × ${r.settings.repeat} rollouts (at most ${r.settings.maxRounds} rounds); the others spend random's rollouts ` +
      `(at most ${r.settings.maxSteps} updates); p* = ${r.targetPassRate}; measured reference columns cost ${r.referenceRollouts} rollouts per task)`,
  ].join('\n');
}
