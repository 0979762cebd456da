// The shared benchmark protocol's view of one run: held-out accuracy against rollouts spent (and
// gradient updates, for the replay leaderboard), and the three readings every table takes from it —
// accuracy at a rollout budget, the area under the curve up to a budget, rollouts to a target.

/** One evaluation of the model during a run. */
export interface BudgetPoint {
  /** Rollouts spent so far, information charges included (see information.ts). */
  rollouts: number;
  /** Gradient updates taken so far. */
  updates: number;
  /** Held-out accuracy of the model at this point, in [0, 1]. */
  accuracy: number;
}

/** One method's run on one seed: evaluations in increasing order of rollouts, the first at 0. */
export interface BudgetCurve {
  method: string;
  seed: number;
  points: BudgetPoint[];
}

/** Throws unless the curve starts at 0 rollouts and its rollouts never decrease. */
export function checkCurve(curve: BudgetCurve): void {
  const pts = curve.points;
  if (pts.length === 0 || pts[0]!.rollouts !== 0)
    throw new Error(`${curve.method} seed ${curve.seed}: a curve starts with an evaluation at 0 rollouts`);
  for (let k = 1; k < pts.length; k++)
    if (pts[k]!.rollouts < pts[k - 1]!.rollouts)
      throw new Error(`${curve.method} seed ${curve.seed}: rollouts decrease at point ${k}`);
}

/**
 * Held-out accuracy after spending `budget` rollouts: linear between the two evaluations around it;
 * past the last evaluation the run has stopped, so its last accuracy holds (no extrapolation).
 */
export function accuracyAt(curve: BudgetCurve, budget: number): number {
  return readAt(curve, budget, (p) => p.accuracy);
}

/** Gradient updates taken by the time `budget` rollouts are spent (read as accuracyAt reads accuracy). */
export function updatesAt(curve: BudgetCurve, budget: number): number {
  return readAt(curve, budget, (p) => p.updates);
}

function readAt(curve: BudgetCurve, budget: number, value: (p: BudgetPoint) => number): number {
  const pts = curve.points;
  if (budget <= 0) return value(pts[0]!);
  for (let k = 1; k < pts.length; k++) {
    const b = pts[k]!;
    if (b.rollouts < budget) continue;
    const a = pts[k - 1]!;
    const span = b.rollouts - a.rollouts;
    return span > 0 ? value(a) + ((budget - a.rollouts) / span) * (value(b) - value(a)) : value(b);
  }
  return value(pts[pts.length - 1]!);
}

/**
 * Normalised area under held-out accuracy against rollouts over [0, budget]: the trapezoid rule over
 * the evaluations (with the curve read at `budget` by accuracyAt, held flat past the run's end),
 * divided by `budget` — the mean held-out accuracy over the budget, in [0, 1].
 */
export function normalisedAuc(curve: BudgetCurve, budget: number): number {
  if (!(budget > 0)) throw new Error('the AUC budget must be positive');
  const xs: number[] = [];
  const ys: number[] = [];
  for (const p of curve.points) {
    if (p.rollouts >= budget) break;
    xs.push(p.rollouts);
    ys.push(p.accuracy);
  }
  xs.push(budget);
  ys.push(accuracyAt(curve, budget));
  let area = 0;
  for (let k = 1; k < xs.length; k++) area += ((xs[k]! - xs[k - 1]!) * (ys[k]! + ys[k - 1]!)) / 2;
  return area / budget;
}

/**
 * Rollouts at which the curve first reaches `target` (linear between the evaluations around the
 * crossing); undefined when it never does.
 */
export function rolloutsToTarget(curve: BudgetCurve, target: number): number | undefined {
  const pts = curve.points;
  if (pts[0]!.accuracy >= target - 1e-12) return 0;
  for (let k = 1; k < pts.length; k++) {
    const b = pts[k]!;
    if (b.accuracy < target - 1e-12) continue;
    const a = pts[k - 1]!;
    const f = b.accuracy > a.accuracy ? (target - a.accuracy) / (b.accuracy - a.accuracy) : 1;
    return a.rollouts + Math.min(1, Math.max(0, f)) * (b.rollouts - a.rollouts);
  }
  return undefined;
}

/**
 * The curve of a method that paid `charge` rollouts for its information before training: the model
 * stays at its start accuracy while the charge is spent, then follows the run shifted right.
 */
export function chargeCurve(curve: BudgetCurve, charge: number): BudgetCurve {
  if (charge <= 0) return curve;
  const [first, ...rest] = curve.points;
  return {
    ...curve,
    points: [
      first!,
      { ...first!, rollouts: charge },
      ...rest.map((p) => ({ ...p, rollouts: p.rollouts + charge })),
    ],
  };
}
