// The protocol's table from a comparison's curves: per method, the normalised AUC and held-out
// accuracy at each rollout budget with paired-seed 90% intervals against the baseline and against
// the best other ranked method, rollouts to each target (secondary), what it was charged, how it was
// tuned, and its rank. Oracles and methods tuned by another rule are reported but never ranked.
import {
  accuracyAt,
  type BudgetCurve,
  chargeCurve,
  checkCurve,
  normalisedAuc,
  rolloutsToTarget,
  updatesAt,
} from './curve.ts';
import { informationCharge, readsOracle } from './information.ts';
import { type PairedInterval, pairedDifference, pairedRatio, type RatioInterval } from './interval.ts';
import { BUDGET_SHARES, type ProtocolMethod, TARGET_SHARES } from './method.ts';
import { type TuningRule, tuningKey } from './tuning.ts';

export interface Comparison {
  /** Against the baseline, then against the best other ranked method (by mean AUC). */
  vsBaseline: PairedInterval;
  vsBestOther: PairedInterval & { other: string };
}

export interface MethodReport {
  method: string;
  description: string;
  /** 1 = highest mean AUC among ranked methods; null when not ranked. */
  rank: number | null;
  /** Why it is outside the ranking (oracle information, or another tuning rule). */
  unranked?: string;
  information: { sources: ProtocolMethod['information']; chargedRollouts: number };
  tuning: TuningRule;
  auc: { mean: number } & Comparison;
  budgets: Array<{ share: number; rollouts: number; accuracy: number; updates: number } & Comparison>;
  targets: Array<{
    share: number;
    target: number;
    rollouts: number;
    reached: number;
    vsBaseline: RatioInterval;
  }>;
}

export interface ProtocolReport {
  baseline: string;
  seeds: number[];
  /** The tuning rule the ranked methods share. */
  rankingTuning: TuningRule;
  /** Per seed: the baseline's full-run rollouts (the 100% budget). */
  budgetPerSeed: Record<string, number>;
  rules: typeof PROTOCOL_RULES;
  methods: MethodReport[];
}

/** The rules, as every JSON result states them. */
export const PROTOCOL_RULES = {
  budgets:
    "held-out accuracy after spending 25/50/100% of the baseline's full-run rollouts on that seed, linear between evaluations, held flat past a run's end",
  auc: 'trapezoid rule over the evaluations of held-out accuracy against rollouts on [0, budget], divided by the budget (the mean accuracy over the budget)',
  intervals:
    'paired by seed: mean of per-seed differences, 90% percentile bootstrap over seeds (4000 resamples, seeded by the comparison name)',
  targets:
    "start + 50/75/90% of the baseline's gain on that seed (final − start); rollouts to reach it, linear between evaluations; a run that never reaches it counts its whole budget",
  information:
    'pass rates of this learner cost rolloutsPerTask × tasks rollouts, paid before training (the curve starts later); columns of another model and pool metadata are free; oracle columns are never ranked',
} as const;

export function evaluateComparison(opts: {
  baseline: string;
  methods: readonly ProtocolMethod[];
  curves: readonly BudgetCurve[];
  rankingTuning: TuningRule;
}): ProtocolReport {
  const seeds = [...new Set(opts.curves.filter((c) => c.method === opts.baseline).map((c) => c.seed))].sort(
    (a, b) => a - b,
  );
  if (seeds.length === 0) throw new Error(`no curves of the baseline '${opts.baseline}'`);
  const charged = new Map<string, BudgetCurve>();
  for (const m of opts.methods)
    for (const seed of seeds) {
      const raw = opts.curves.find((c) => c.method === m.name && c.seed === seed);
      if (!raw) throw new Error(`no curve of ${m.name} on seed ${seed}`);
      checkCurve(raw);
      charged.set(`${m.name}#${seed}`, chargeCurve(raw, informationCharge(m.information)));
    }
  const curve = (name: string, seed: number) => charged.get(`${name}#${seed}`)!;
  const budget = (seed: number) => {
    const pts = curve(opts.baseline, seed).points;
    return pts[pts.length - 1]!.rollouts;
  };
  const perSeed = (name: string, f: (c: BudgetCurve, seed: number) => number) =>
    seeds.map((s) => f(curve(name, s), s));
  const aucOf = (name: string) => perSeed(name, (c, s) => normalisedAuc(c, budget(s)));
  const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  const unranked = new Map<string, string>();
  for (const m of opts.methods) {
    if (readsOracle(m.information))
      unranked.set(m.name, 'oracle: reads the true pass rates, which no budget buys');
    else if (tuningKey(m.tuning) !== tuningKey(opts.rankingTuning))
      unranked.set(m.name, 'tuned by another rule than the ranked methods');
  }
  const ranked = opts.methods
    .filter((m) => !unranked.has(m.name))
    .map((m) => ({ name: m.name, auc: meanOf(aucOf(m.name)) }))
    .sort((a, b) => b.auc - a.auc);
  const bestOther = (name: string) => ranked.find((r) => r.name !== name)?.name ?? opts.baseline;
  const compare = (name: string, f: (c: BudgetCurve, seed: number) => number, label: string): Comparison => {
    const mine = perSeed(name, f);
    const other = bestOther(name);
    return {
      vsBaseline: pairedDifference(mine, perSeed(opts.baseline, f), `${label}:${name}:${opts.baseline}`),
      vsBestOther: { other, ...pairedDifference(mine, perSeed(other, f), `${label}:${name}:${other}`) },
    };
  };
  const methods = opts.methods.map((m): MethodReport => {
    const rank = ranked.findIndex((r) => r.name === m.name);
    const why = unranked.get(m.name);
    return {
      method: m.name,
      description: m.description,
      rank: rank >= 0 ? rank + 1 : null,
      ...(why ? { unranked: why } : {}),
      information: { sources: m.information, chargedRollouts: informationCharge(m.information) },
      tuning: m.tuning,
      auc: { mean: meanOf(aucOf(m.name)), ...compare(m.name, (c, s) => normalisedAuc(c, budget(s)), 'auc') },
      budgets: BUDGET_SHARES.map((share) => {
        const at = (c: BudgetCurve, s: number) => accuracyAt(c, share * budget(s));
        return {
          share,
          rollouts: meanOf(seeds.map((s) => share * budget(s))),
          accuracy: meanOf(perSeed(m.name, at)),
          updates: meanOf(perSeed(m.name, (c, s) => updatesAt(c, share * budget(s)))),
          ...compare(m.name, at, `budget${share}`),
        };
      }),
      targets: TARGET_SHARES.map((share) => {
        const targetOf = (s: number) => {
          const pts = curve(opts.baseline, s).points;
          return pts[0]!.accuracy + share * (pts[pts.length - 1]!.accuracy - pts[0]!.accuracy);
        };
        const hit = (c: BudgetCurve, s: number) => rolloutsToTarget(c, targetOf(s));
        const mine = perSeed(m.name, (c, s) => hit(c, s) ?? budget(s));
        const base = perSeed(opts.baseline, (c, s) => hit(c, s) ?? budget(s));
        return {
          share,
          target: meanOf(seeds.map(targetOf)),
          rollouts: meanOf(mine),
          reached: perSeed(m.name, (c, s) => (hit(c, s) === undefined ? 0 : 1)).reduce((a, b) => a + b, 0),
          vsBaseline: pairedRatio(mine, base, `target${share}:${m.name}`),
        };
      }),
    };
  });
  return {
    baseline: opts.baseline,
    seeds,
    rankingTuning: opts.rankingTuning,
    budgetPerSeed: Object.fromEntries(seeds.map((s) => [String(s), budget(s)])),
    rules: PROTOCOL_RULES,
    methods,
  };
}
