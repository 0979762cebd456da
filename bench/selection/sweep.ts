// `bench selection --sweep FACTOR|all`: the regime sweep of issue #22. Each point is the default
// scenario with one factor changed (share of too-easy/too-hard tasks, group size, reward noise,
// pool size); every method runs on the same seeds, and the point reports each method's rollouts
// and steps to random's final accuracy as paired ratios to random with 90% bootstrap intervals,
// and the winner with its paired ratio to the runner-up.
import { ConfigError } from '../../src/core/errors.ts';
import { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { bootstrapRatio, type Interval } from '../learning-curriculum/stats.ts';
import type { ProtocolReport } from '../protocol/evaluate.ts';
import type { PairedInterval } from '../protocol/interval.ts';
import { ALL_NAMES, ALL_SELECTORS } from './lineup.ts';
import { runScenario } from './runner.ts';
import { SCENARIOS } from './scenarios.ts';
import {
  SWEEP_FACTORS,
  type SweepFactor,
  type SweepPoint,
  sweepPoints,
  UNUSABLE_HIGH,
  UNUSABLE_LOW,
} from './sweep-points.ts';

export interface SweepOptions {
  /** A factor, or 'all'. */
  factor: string;
  /** Seeds per method (default 5) from firstSeed (default 6: the report seeds). */
  seeds?: number;
  firstSeed?: number;
  /** Methods (default: `all` = random, bots, shared_ability and the zoo). */
  selectors?: string[];
  steps?: number;
  /** Pool sizes of the pool-size factor (default 1k, 10k, 100k, 1M). */
  poolSizes?: number[];
  /** Only these points of the factor (1-based, in the sweep's order); all when absent. */
  points?: number[];
  /** Above this pool size, methods that score every task with a fresh draw each step are skipped. */
  maxExactPool?: number;
  onProgress?: (message: string) => void;
}

/** One method at one point. */
export interface SweepMethod {
  selector: string;
  reached: number;
  runs: number;
  rolloutsRatio: Interval;
  stepsRatio: Interval;
  effectiveRatio: number;
  finalAccuracy: number;
  /** Rollouts to the target per seed (seed order), for paired ratios between methods. */
  rolloutsPerSeed: number[];
}

export interface SweepPointResult {
  factor: SweepFactor;
  label: string;
  value: number;
  isDefault: boolean;
  tasks: number;
  groupSize: number;
  /** Mean over the seeds of the start shares of too-easy (p > 0.95) and too-hard (p < 0.05) tasks. */
  startEasy: number;
  startHard: number;
  /** Random's final held-out accuracy (the target), mean over seeds. */
  target: number;
  methods: SweepMethod[];
  skipped: Array<{ selector: string; reason: string }>;
  /** Fewest rollouts to the target (oracle excluded), the runner-up, and winner ÷ runner-up paired over seeds. */
  winner: string;
  runnerUp: string;
  winnerOverRunnerUp: Interval;
  /** shared_ability ÷ the best method that is not Winnow's (when both ran). */
  sharedAbilityOverBestOther: { other: string; ratio: Interval } | null;
  /** Winnow's best method (shared_ability and its variants) ÷ the best method that is not Winnow's. */
  winnowOverBestOther: { winnow: string; other: string; ratio: Interval } | null;
  /** The protocol's reading (bench/protocol): per method its AUC, rank and paired AUC − random. */
  auc: Array<{ selector: string; rank: number | null; auc: number; vsRandom: PairedInterval }>;
  /** The first ranked method by AUC and its paired AUC − the runner-up's. */
  aucWinner: { selector: string; overRunnerUp: PairedInterval & { other: string } };
  seconds: number;
}

export interface SweepResult {
  factors: SweepFactor[];
  seeds: number[];
  steps: number;
  batch: number;
  points: SweepPointResult[];
  elapsedMs: number;
}

/** Winnow's own methods: the successor and its variants (alone or with a stage in front), and headroom. */
export const isWinnows = (name: string): boolean => name.startsWith('shared_ability') || name === 'headroom';

/** Methods whose select draws a fresh random number per task every step (seconds per step at 10⁶ tasks). */
const EXACT_OVER_POOL = new Set(['bots', 'bots_explicit', 'bots+greso', 'bots+speed']);

function startShares(point: SweepPoint, seeds: readonly number[]): { easy: number; hard: number } {
  let easy = 0;
  let hard = 0;
  for (const seed of seeds) {
    const p = new LearnerSim(point.sim, seed).passRates();
    let e = 0;
    let h = 0;
    for (const x of p) {
      if (x > UNUSABLE_HIGH) e++;
      else if (x < UNUSABLE_LOW) h++;
    }
    easy += e / p.length;
    hard += h / p.length;
  }
  return { easy: easy / seeds.length, hard: hard / seeds.length };
}

function runPoint(point: SweepPoint, opts: SweepOptions, selectors: string[], pi: number): SweepPointResult {
  const t0 = performance.now();
  const seedCount = opts.seeds ?? 5;
  const firstSeed = opts.firstSeed ?? 6;
  const seeds = Array.from({ length: seedCount }, (_, i) => firstSeed + i);
  const tasks = point.sim.tasks ?? 4000;
  const tooBig = tasks > (opts.maxExactPool ?? 100_000);
  const run = tooBig ? selectors.filter((s) => !EXACT_OVER_POOL.has(s)) : selectors;
  const base = SCENARIOS['default']!;
  const sc = runScenario(
    {
      ...base,
      name: `${point.factor}: ${point.label}`,
      sim: { ...base.sim, ...point.sim },
    },
    {
      seeds: seedCount,
      firstSeed,
      selectors: run,
      ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
  );
  const skipped = [
    ...sc.skipped,
    ...selectors
      .filter((s) => !run.includes(s))
      .map((selector) => ({
        selector,
        reason: `a fresh draw per task per step over ${tasks.toLocaleString('en-US')} tasks (seconds per step); not run above ${(opts.maxExactPool ?? 100_000).toLocaleString('en-US')} tasks`,
      })),
  ];
  const ranked = sc.selectors
    .filter((s) => s.selector !== 'random' && s.selector !== 'oracle')
    .sort((a, b) => a.rolloutsRatio.ratio - b.rolloutsRatio.ratio);
  const byName = new Map(sc.selectors.map((s) => [s.selector, s] as const));
  const paired = (a: string, b: string, salt: number): Interval =>
    bootstrapRatio(byName.get(a)!.rolloutsPerSeed, byName.get(b)!.rolloutsPerSeed, 7000 + 31 * pi + salt);
  const winner = ranked[0]?.selector ?? 'random';
  const runnerUp = ranked[1]?.selector ?? 'random';
  const bestOther = ranked.find((s) => !isWinnows(s.selector));
  const bestWinnow = ranked.find((s) => isWinnows(s.selector));
  const shares = startShares(point, seeds);
  return {
    factor: point.factor,
    label: point.label,
    value: point.value,
    isDefault: point.isDefault,
    tasks: sc.tasks,
    groupSize: sc.groupSize,
    startEasy: shares.easy,
    startHard: shares.hard,
    target: sc.target.mean,
    methods: sc.selectors.map((s) => ({
      selector: s.selector,
      reached: s.reached,
      runs: s.runs,
      rolloutsRatio: s.rolloutsRatio,
      stepsRatio: s.stepsRatio,
      effectiveRatio: s.etr.mean,
      finalAccuracy: s.finalAccuracy.mean,
      rolloutsPerSeed: s.rolloutsPerSeed,
    })),
    skipped,
    winner,
    runnerUp,
    winnerOverRunnerUp: paired(winner, runnerUp, 1),
    sharedAbilityOverBestOther:
      byName.has('shared_ability') && bestOther
        ? { other: bestOther.selector, ratio: paired('shared_ability', bestOther.selector, 2) }
        : null,
    winnowOverBestOther:
      bestWinnow && bestOther
        ? {
            winnow: bestWinnow.selector,
            other: bestOther.selector,
            ratio: paired(bestWinnow.selector, bestOther.selector, 3),
          }
        : null,
    auc: sc.protocol.methods.map((m) => ({
      selector: m.method,
      rank: m.rank,
      auc: m.auc.mean,
      vsRandom: m.auc.vsBaseline,
    })),
    aucWinner: aucWinnerOf(sc.protocol),
    seconds: (performance.now() - t0) / 1000,
  };
}

function aucWinnerOf(p: ProtocolReport): SweepPointResult['aucWinner'] {
  const first = p.methods.find((m) => m.rank === 1)!;
  return { selector: first.method, overRunnerUp: first.auc.vsBestOther };
}

export async function runSelectionSweep(opts: SweepOptions): Promise<SweepResult> {
  const t0 = performance.now();
  const factors = opts.factor === 'all' ? [...SWEEP_FACTORS] : [opts.factor as SweepFactor];
  for (const f of factors)
    if (!SWEEP_FACTORS.includes(f))
      throw new ConfigError({
        path: 'sweep',
        message: `unknown sweep factor '${f}'`,
        hint: `known: all, ${SWEEP_FACTORS.join(', ')}`,
      });
  const asked = opts.selectors ?? ['all'];
  const selectors = asked.includes('all')
    ? [...new Set([...ALL_NAMES, ...asked.filter((s) => s !== 'all')])]
    : [...new Set(['random', ...asked])];
  const known = new Set(ALL_SELECTORS.map((s) => s.name));
  for (const s of selectors)
    if (!known.has(s))
      throw new ConfigError({ path: 'selectors', message: `unknown selector '${s}'`, hint: 'see --help' });
  const points: SweepPointResult[] = [];
  // A point's index in the whole sweep salts its bootstrap: a point run alone (--points) gives the
  // numbers it gives inside its factor's full sweep.
  let index = 0;
  for (const factor of factors) {
    const all = sweepPoints(factor, opts.poolSizes);
    const missing = opts.points?.filter((i) => i > all.length) ?? [];
    if (missing.length > 0)
      throw new ConfigError({
        path: 'points',
        message: `the ${factor} sweep has ${all.length} points, no point ${missing.join(', ')}`,
        hint: `choose among 1–${all.length}`,
      });
    for (const [i, point] of all.entries()) {
      if (opts.points && !opts.points.includes(i + 1)) continue;
      const r = runPoint(point, opts, selectors, index + i);
      opts.onProgress?.(`sweep ${factor} ${point.label}: winner ${r.winner} (${r.seconds.toFixed(0)} s)`);
      points.push(r);
      // Yield between points so a caller's timers and signals get a turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
    index += all.length;
  }
  const base = SCENARIOS['default']!;
  const seedCount = opts.seeds ?? 5;
  return {
    factors,
    seeds: Array.from({ length: seedCount }, (_, i) => (opts.firstSeed ?? 6) + i),
    steps: opts.steps ?? base.steps,
    batch: base.batch,
    points,
    elapsedMs: performance.now() - t0,
  };
}
