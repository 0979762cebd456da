// Running a comparison under the protocol, for any learner: the baseline runs its fixed length on a
// seed, which sets that seed's rollout budget; every other method then runs until it has spent the
// same budget, less the rollouts its information is charged (information.ts).
import type { BudgetCurve } from './curve.ts';
import { informationCharge } from './information.ts';
import type { ProtocolMethod } from './method.ts';

/**
 * Runs `method` on `seed` and returns its raw curve (uncharged; the first point at 0 rollouts).
 * `rolloutBudget` null: the baseline's fixed-length run. Otherwise stop at the first update after
 * which the rollouts spent reach the budget (0: evaluate the start only).
 */
export type MethodRunner = (
  method: ProtocolMethod,
  seed: number,
  rolloutBudget: number | null,
) => Promise<BudgetCurve>;

export async function runComparison(opts: {
  baseline: ProtocolMethod;
  methods: readonly ProtocolMethod[];
  seeds: readonly number[];
  run: MethodRunner;
  onCurve?: (curve: BudgetCurve) => void;
}): Promise<BudgetCurve[]> {
  const curves: BudgetCurve[] = [];
  for (const seed of opts.seeds) {
    const base = await opts.run(opts.baseline, seed, null);
    curves.push(base);
    opts.onCurve?.(base);
    const budget = base.points[base.points.length - 1]!.rollouts;
    for (const m of opts.methods) {
      if (m.name === opts.baseline.name) continue;
      const left = Math.max(0, budget - informationCharge(m.information));
      const c = await opts.run(m, seed, left);
      curves.push(c);
      opts.onCurve?.(c);
    }
  }
  return curves;
}
