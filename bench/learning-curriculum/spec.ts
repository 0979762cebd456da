// The command line of `winnow bench curriculum`, in a light module (bench/bench-specs.ts lists it).
import type { CommandSpec } from '../../src/cli/command-spec.ts';
import { DEFAULT_BOTS_RHO, DEFAULT_TARGET_PASS_RATE } from './lineup.ts';
import { POOL_REGIME_OPTIONS } from './regime-spec.ts';

/** The selectors the curriculum bench compares, in table order (random is the baseline). */
export const CURRICULUM_SELECTORS = [
  'random',
  'bots',
  'bots_ref',
  'bots_domain',
  'shared_ability',
  'shared_ability_cand',
  'shared_ability_ref',
  'shared_ability_expected',
  'offline_easy2hard',
  'oracle',
  // The selection zoo (issue #22, docs/selection-zoo.md), run with `--selectors all` or by name.
  'mopps',
  'dots',
  'lilo',
  'adarft',
  'plr',
  'sec',
  'dump',
  'vcrl',
  'pcl',
  'dapo_ds',
  'greso',
  'speed',
  'bots_ref+greso',
  'bots_ref+speed',
  'shared_ability+speed',
] as const;

/** `--selectors all`: random, BOTS (both), the successor and the zoo. */
export const CURRICULUM_ALL = CURRICULUM_SELECTORS.filter(
  (n) => !['shared_ability_ref', 'shared_ability_expected', 'offline_easy2hard', 'oracle'].includes(n),
);
export type CurriculumSelectorName = (typeof CURRICULUM_SELECTORS)[number];

export const CURRICULUM_BENCH_SPEC = {
  name: 'bench curriculum',
  args: '',
  maxArgs: 0,
  summary:
    'Task selection on the real tiny learner over a graded curriculum pool (datasets/curriculum, most tasks solved or ' +
    'hopeless at the start): each selector against random over seeds; steps and rollouts to target, effective task ratio ' +
    'and held-out accuracy per level, with seeded bootstrap 90% intervals.',
  options: {
    seeds: { type: 'int', value: 'K', min: 1, default: 5, description: 'seeds per selector' },
    'first-seed': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 6,
      description: 'seeds run are N…N+K−1 (defaults were tuned on seeds 1–5; report on 6–10)',
    },
    steps: { type: 'int', value: 'N', min: 1, default: 40, description: 'training steps per run' },
    every: { type: 'int', value: 'N', min: 1, default: 4, description: 'held-out accuracy every N steps' },
    'target-share': {
      type: 'number',
      value: 'X',
      min: 0.05,
      max: 1,
      default: 0.5,
      description: "target held-out accuracy = start + X × random's mean gain over the seeds",
    },
    'train-groups': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 16,
      description: 'groups with a gradient (mixed rewards) each update trains on',
    },
    'batch-tasks': { type: 'int', value: 'N', min: 1, default: 16, description: 'tasks per rollout round' },
    'max-rounds': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 8,
      description: 'rollout rounds a step may take to find its groups (then it trains on what it has)',
    },
    repeat: {
      type: 'int',
      value: 'N',
      min: 2,
      default: 8,
      description: 'rollouts per task (the GRPO group)',
    },
    lr: {
      type: 'number',
      value: 'X',
      default: 0.003,
      description: 'learning rate of the policy-gradient trainer',
    },
    'target-pass-rate': {
      type: 'number',
      value: 'P',
      min: 0.01,
      max: 0.99,
      default: DEFAULT_TARGET_PASS_RATE,
      description: 'pass rate p* that BOTS, shared_ability and the oracle aim at',
    },
    rho: {
      type: 'number',
      value: 'X',
      min: 0,
      max: 1,
      default: DEFAULT_BOTS_RHO,
      description: "weight ρ of BOTS's reference (implicit) evidence in bots_ref",
    },
    selectors: {
      type: 'list',
      value: 'A,B',
      choices: ['all', ...CURRICULUM_SELECTORS],
      default: 'random,bots,bots_ref,shared_ability,offline_easy2hard,oracle',
      description:
        'selectors to compare (random, the baseline, always runs; all = random, BOTS, shared_ability and the selection zoo)',
    },
    smoke: {
      type: 'boolean',
      description:
        'a tiny configuration for CI (seeds 6–7 unless --seeds, 4 updates, rounds of 8 tasks × 4 rollouts, 3 selectors unless --selectors) whose output shape a test checks',
    },
    'overhead-tasks': {
      type: 'int',
      value: 'N',
      min: 0,
      default: 0,
      description:
        'also time each selector step on a simulated pool of N tasks (e.g. 1000000; 0 = not measured)',
    },
    ...POOL_REGIME_OPTIONS,
    html: {
      type: 'string',
      value: 'FILE',
      description: 'also write the learning curves and the tables as one HTML page',
    },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
    quiet: { type: 'boolean', description: 'no progress lines on stderr' },
  },
  examples: [
    'winnow bench curriculum --json --html curriculum.html',
    'winnow bench curriculum --seeds 5 --first-seed 1 --selectors random,bots,shared_ability',
    'winnow bench curriculum --smoke --json',
    'winnow bench curriculum --pool-unusable 0.2 --selectors random,pcl,shared_ability --json',
  ],
} as const satisfies CommandSpec;
