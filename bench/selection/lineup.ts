import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import type { StageConfig } from '../../src/selectors/stages/registry.ts';
import type { Selector } from '../../src/selectors/types.ts';
import { HEADROOM_TUNING, type TuningRule } from '../protocol/tuning.ts';
import { OracleSelector } from './oracle.ts';

/** A selector as the benchmark runs it: a name in the tables and how to build it on a simulator. */
export interface BenchSelector {
  name: string;
  description: string;
  /** Needs these feature columns (skipped, with a note, in scenarios that lack them). */
  needs?: string[];
  /** Pre-rollout stages run in front of the selector (issue #22). */
  stages?: StageConfig[];
  /** The selector cannot take tasks added mid-run (skipped in scenarios with arrivals). */
  fixedTasks?: boolean;
  /** How its parameters were chosen (default: published defaults; anything else is not ranked). */
  tuning?: TuningRule;
  build(sim: LearnerSim, seed: number): Selector;
}

const fromConfig =
  (config: SelectorConfig) =>
  (sim: LearnerSim, seed: number): Selector =>
    createSelector(config, sim.view(), seed);

/** The compared selectors, in table order. BOTS runs exactly as specified (no shortlist). */
export const LINEUP: BenchSelector[] = [
  { name: 'random', description: 'uniform, no repeats in a batch', build: fromConfig({ type: 'random' }) },
  {
    name: 'easy2hard',
    description: "offline curriculum by the tasks' difficulty level (1–5)",
    needs: ['level'],
    build: fromConfig({ type: 'offline_easy2hard', params: { feature: 'level', order: 'asc' } }),
  },
  {
    name: 'pass_rate',
    description: 'smoothed observed pass rate closest to 0.5',
    build: fromConfig({ type: 'pass_rate' }),
  },
  {
    name: 'bots',
    description: 'BOTS, paper defaults (m 16, λ 0.1, ρ 0.1, p* 0.5, Thompson)',
    build: fromConfig({ type: 'bots', params: { shortlist: 0 } }),
  },
  {
    name: 'bots_explicit',
    description: 'BOTS with explicit evidence only (ρ = 0)',
    build: fromConfig({ type: 'bots', params: { rho: 0, shortlist: 0 } }),
  },
  {
    name: 'shared_ability',
    description: 'the successor: shared-ability model in log-odds space',
    build: fromConfig({ type: 'shared_ability' }),
  },
  {
    name: 'oracle',
    description: 'knows the true pass rates (upper reference)',
    build: (sim, seed) => {
      const o = new OracleSelector(seed, sim);
      o.init(sim.view());
      return o;
    },
  },
];

/** The default comparison. */
export const LINEUP_NAMES = LINEUP.map((s) => s.name);

/** Further entries, run only when asked for with `--selectors`. */
export const EXTRA_SELECTORS: BenchSelector[] = [
  {
    name: 'bots_shortlist',
    description: 'BOTS with Thompson draws only on a 1,024-task shortlist (its large-N approximation)',
    build: fromConfig({ type: 'bots', params: { shortlist: 1024 } }),
  },
  {
    name: 'shared_ability_thompson',
    description: 'the successor scoring one posterior draw per task instead of the expected usefulness',
    build: fromConfig({ type: 'shared_ability', params: { mode: 'thompson', shortlist: 0 } }),
  },
  {
    name: 'shared_ability_no_practice',
    description: 'the successor without the practice term',
    build: fromConfig({ type: 'shared_ability', params: { practiceEffect: false } }),
  },
];

const zoo = (
  name: string,
  description: string,
  config: SelectorConfig,
  stages?: StageConfig[],
): BenchSelector => ({
  name,
  description,
  fixedTasks: true,
  ...(stages ? { stages } : {}),
  build: fromConfig(config),
});

/**
 * The selection zoo (issue #22, docs/selection-zoo.md): every published method at its paper's
 * defaults, categories = the difficulty level where a method needs them, and the pre-rollout
 * stages alone (over random) and composed with BOTS and the successor.
 */
export const ZOO_SELECTORS: BenchSelector[] = [
  zoo('mopps', 'MoPPS: Beta posteriors with retention, Thompson toward 0.5', { type: 'mopps' }),
  zoo('dots', 'DOTS: reference set every 10 steps, attention over features', { type: 'dots' }),
  zoo('lilo', 'LILO: learnability p(1−p) by rejection', { type: 'lilo' }),
  zoo('adarft', 'AdaRFT: target level moved by η·tanh(α(R̄−β))', {
    type: 'adarft',
    params: { feature: 'level' },
  }),
  zoo('plr', 'Prioritized Level Replay: rank score + staleness', { type: 'plr' }),
  zoo('sec', 'SEC: Boltzmann bandit over levels, TD(0) on |advantage|', {
    type: 'sec',
    params: { category: 'level' },
  }),
  zoo('dump', 'DUMP: UCB over levels on windowed |advantage|', {
    type: 'dump',
    params: { category: 'level' },
  }),
  zoo('vcrl', 'VCRL: variance memory bank refills low-variance slots', { type: 'vcrl' }),
  zoo('pcl', 'PCL: online value model, 4× candidates closest to 0.5', { type: 'pcl' }),
  zoo('dapo_ds', 'random + DAPO dynamic sampling (keep mixed groups, refill)', { type: 'random' }, [
    { type: 'dapo_ds' },
  ]),
  zoo('greso', 'random + DAPO dynamic sampling + GRESO pre-rollout skipping', { type: 'random' }, [
    { type: 'dapo_ds' },
    { type: 'greso' },
  ]),
  zoo('speed', 'random + SPEED screening (4 rollouts, continue 0 < p < 1)', { type: 'random' }, [
    { type: 'speed' },
  ]),
  zoo('bots+greso', 'BOTS with GRESO skipping in front', { type: 'bots', params: { shortlist: 0 } }, [
    { type: 'greso' },
  ]),
  zoo('bots+speed', 'BOTS with SPEED screening', { type: 'bots', params: { shortlist: 0 } }, [
    { type: 'speed' },
  ]),
  zoo('shared_ability+speed', 'the successor with SPEED screening', { type: 'shared_ability' }, [
    { type: 'speed' },
  ]),
];

/**
 * Winnow's successor as tuned for the zoo (issue #22, docs/selection-zoo.md): shared_ability over
 * PCL's candidate set (4 × the batch, uniform), with the task columns as regressors.
 */
export const SUCCESSOR_SELECTORS: BenchSelector[] = [
  {
    name: 'shared_ability_cand',
    description: 'the successor over a 4× uniform candidate set, level column as a regressor',
    needs: ['level'],
    tuning: { kind: 'asymmetric', note: 'candidate set and regressors chosen on seeds 1–5 (issue #22)' },
    build: fromConfig({ type: 'shared_ability', params: { candidates: 4, features: ['level'] } }),
  },
  {
    name: 'headroom',
    description: "Winnow's headroom selector at its defaults: learnability × the domain's headroom",
    fixedTasks: true,
    build: fromConfig({ type: 'headroom' }),
    tuning: HEADROOM_TUNING,
  },
  {
    name: 'progress',
    description:
      "Winnow's learning-progress selector at its defaults: domain shares by |change of the pass rate| over random's split",
    fixedTasks: true,
    build: fromConfig({ type: 'progress' }),
  },
];

/**
 * `--selectors all`: random, BOTS, the successor and the whole zoo at their defaults, the tuned
 * successor variant and the oracle (both reported outside the protocol's ranking), and Winnow's
 * headroom selector (issue 41 item 3, among the successors).
 */
export const ALL_NAMES = [
  'random',
  'bots',
  'shared_ability',
  ...SUCCESSOR_SELECTORS.map((s) => s.name),
  ...ZOO_SELECTORS.map((s) => s.name),
  'oracle',
];

export const ALL_SELECTORS: BenchSelector[] = [
  ...LINEUP,
  ...EXTRA_SELECTORS,
  ...SUCCESSOR_SELECTORS,
  ...ZOO_SELECTORS,
];
