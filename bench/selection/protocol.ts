// The simulator leaderboard under the shared protocol (bench/protocol): random runs the scenario's
// steps and sets each seed's rollout budget; every other method runs up to OVERRUN × the steps and
// its trace is cut where it has spent the budget (a selector never sees the budget, so the cut run
// is the run it would have made). Curves then go through evaluateComparison like the real learners'.
import type { BudgetCurve } from '../protocol/curve.ts';
import { evaluateComparison, type ProtocolReport } from '../protocol/evaluate.ts';
import type { InformationSource } from '../protocol/information.ts';
import type { ProtocolMethod } from '../protocol/method.ts';
import { PUBLISHED_DEFAULTS, type TuningRule } from '../protocol/tuning.ts';
import type { BenchSelector } from './lineup.ts';
import type { RunTrace } from './metrics.ts';

/** How many times random's steps another method may take to spend random's rollouts. */
export const OVERRUN = 3;

/** The first steps of a trace, up to the first step whose rollouts reach `budget` (all of it if none does). */
export function cutTrace(tr: RunTrace, budget: number): RunTrace {
  let n = tr.steps;
  for (let t = 0; t < tr.steps; t++)
    if (tr.rollouts[t]! >= budget) {
      n = t + 1;
      break;
    }
  if (n === tr.steps) return tr;
  return {
    ...tr,
    steps: n,
    accuracy: tr.accuracy.slice(0, n),
    mixed: tr.mixed.slice(0, n),
    groups: tr.groups.slice(0, n),
    rollouts: tr.rollouts.slice(0, n),
  };
}

/** A trace as the protocol reads it: the start, then one point per step (one update per step). */
export function traceCurve(tr: RunTrace): BudgetCurve {
  const points = [{ rollouts: 0, updates: 0, accuracy: tr.startAccuracy }];
  for (let t = 0; t < tr.steps; t++)
    points.push({ rollouts: tr.rollouts[t]!, updates: t + 1, accuracy: tr.accuracy[t]! });
  return { method: tr.selector, seed: tr.seed, points };
}

const SIM_COLUMNS: InformationSource = {
  kind: 'pool_columns',
  columns: ['the simulated pool columns (level; weak/strong reference pass rates of simulated other models)'],
};

/** What a simulator method reads and how it was tuned. */
export function simMethod(entry: BenchSelector): ProtocolMethod {
  const information: InformationSource[] =
    entry.name === 'oracle'
      ? [SIM_COLUMNS, { kind: 'oracle', columns: ["the simulated learner's true pass rates"] }]
      : [SIM_COLUMNS];
  const tuning: TuningRule = entry.tuning ?? PUBLISHED_DEFAULTS;
  return { name: entry.name, description: entry.description, information, tuning };
}

export function scenarioProtocol(
  entries: readonly BenchSelector[],
  traces: Map<string, RunTrace[]>,
): ProtocolReport {
  return evaluateComparison({
    baseline: 'random',
    methods: entries.map(simMethod),
    curves: [...traces.values()].flatMap((trs) => trs.map(traceCurve)),
    rankingTuning: PUBLISHED_DEFAULTS,
  });
}
