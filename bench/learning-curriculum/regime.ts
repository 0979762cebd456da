// A regime of the curriculum pool (issue #22): a seeded sub-pool with a chosen share of tasks that
// are unusable at the start (the warm start's exact pass rate < 0.05 or > 0.95), so that the
// sweep varies that share alone while the pool size stays fixed. Too-easy and too-hard tasks are
// drawn uniformly from the full pool's unusable ones, so they keep its proportion (115 : 399).
import { ConfigError } from '../../src/core/errors.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import type { StartReport } from './references.ts';

export interface PoolRegime {
  /** Share of unusable tasks in the sub-pool. */
  unusable: number;
  tasks: number;
}

export interface RegimePool {
  train: Task[];
  start: StartReport;
  strong: Float64Array;
  /** Counts in the sub-pool. */
  tooEasy: number;
  tooHard: number;
  usable: number;
}

const isUnusable = (p: number) => p < 0.05 || p > 0.95;

/** The sub-pool (in the full pool's order, so selectors see tasks as before), with its start report. */
export function regimePool(
  train: readonly Task[],
  start: StartReport,
  strong: Float64Array,
  regime: PoolRegime,
  repeat: number,
): RegimePool {
  const bad: number[] = [];
  const good: number[] = [];
  for (let i = 0; i < start.passRates.length; i++) (isUnusable(start.passRates[i]!) ? bad : good).push(i);
  const wantBad = Math.round(regime.unusable * regime.tasks);
  const wantGood = regime.tasks - wantBad;
  if (wantBad > bad.length || wantGood > good.length)
    throw new ConfigError({
      path: 'pool-unusable',
      message: `a ${regime.tasks}-task pool with ${wantBad} unusable and ${wantGood} usable tasks cannot be drawn from ${bad.length} unusable and ${good.length} usable`,
      hint: 'lower --pool-tasks',
    });
  const rng = new Rng(`curriculum-regime:${regime.unusable}:${regime.tasks}`);
  const draw = (from: readonly number[], n: number) =>
    rng.sampleDistinct(from.length, n).map((j) => from[j]!);
  const keep = [...draw(bad, wantBad), ...draw(good, wantGood)].sort((a, b) => a - b);
  const passRates = Float64Array.from(keep, (i) => start.passRates[i]!);
  const sub = keep.map((i) => train[i]!);
  const rates = [...passRates];
  const by = new Map<string, number[]>();
  sub.forEach((t, j) => {
    const d = String(t.meta.domain);
    by.set(d, [...(by.get(d) ?? []), rates[j]!]);
  });
  return {
    train: sub,
    strong: Float64Array.from(keep, (i) => strong[i]!),
    start: {
      passRates,
      extremeShare: rates.filter(isUnusable).length / rates.length,
      noGradientShare: rates.reduce((a, p) => a + p ** repeat + (1 - p) ** repeat, 0) / rates.length,
      byLevel: Object.fromEntries([...by].map(([d, xs]) => [d, xs.reduce((a, b) => a + b, 0) / xs.length])),
    },
    tooEasy: rates.filter((p) => p > 0.95).length,
    tooHard: rates.filter((p) => p < 0.05).length,
    usable: rates.filter((p) => !isUnusable(p)).length,
  };
}
