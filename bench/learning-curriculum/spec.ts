// The command line of `winnow bench curriculum`, in a light module (bench/bench-specs.ts lists it).
import type { CommandSpec } from '../../src/cli/command-spec.ts';
import { PROTOCOL_RUN_OPTIONS } from '../protocol/run-options.ts';
import { BENCH_LEARNER_NAMES } from './learners.ts';
import { DEFAULT_BOTS_RHO, DEFAULT_TARGET_PASS_RATE } from './lineup.ts';
import { POOL_REGIME_OPTIONS } from './regime-spec.ts';

/** The selectors the bench compares, in table order (random is the baseline; lineup.ts defines them). */
export const CURRICULUM_SELECTORS = [
  'random',
  'bots',
  'bots_ref',
  'shared_ability',
  'shared_ability_ref',
  'headroom',
  'progress',
  'offline_easy2hard',
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
  'bots+speed',
  'shared_ability+speed',
  'oracle',
  'bots_ref_tuned',
  'bots_tuned',
  'bots_domain',
  'shared_ability_thompson',
  'shared_ability_cand',
] as const;

/**
 * `--selectors all`: every method at its published defaults (the ranking) and the two oracles
 * (reported outside it); the variants tuned on seeds 1–5 run only by name.
 */
export const CURRICULUM_ALL = CURRICULUM_SELECTORS.filter(
  (n) =>
    ![
      'bots+speed',
      'shared_ability+speed',
      'bots_tuned',
      'bots_domain',
      'shared_ability_thompson',
      'shared_ability_cand',
    ].includes(n),
);
export type CurriculumSelectorName = (typeof CURRICULUM_SELECTORS)[number];

export const CURRICULUM_BENCH_SPEC = {
  name: 'bench curriculum',
  args: '',
  maxArgs: 0,
  summary:
    'Task selection on a real tiny learner (--learner curriculum: graded additions, most tasks solved or hopeless at the ' +
    'start; arithmetic: mixed operators) under the shared protocol: random runs its fixed length, every other method the ' +
    'same rollouts (information it reads charged); per method the AUC of held-out accuracy against rollouts and accuracy ' +
    "at 25/50/100% of random's rollouts with paired-seed 90% intervals, rollouts to 50/75/90% of random's gain, " +
    'information charged and the tuning rule.',
  options: {
    learner: {
      type: 'string',
      value: 'NAME',
      choices: BENCH_LEARNER_NAMES,
      default: 'curriculum',
      description:
        'the real learner: curriculum (800 graded additions) or arithmetic (2,394 mixed-operator tasks)',
    },
    seeds: { type: 'int', value: 'K', min: 1, default: 10, description: 'report seeds per selector' },
    'first-seed': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 6,
      description: 'seeds run are N…N+K−1 (seeds 1–5 were used for tuning: report on 6 and up)',
    },
    steps: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 40,
      description: "random's updates per run; its rollouts set the budget every other method spends",
    },
    'max-steps': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 120,
      description: 'the most updates a method may take to spend the budget',
    },
    'reference-rollouts': {
      type: 'int',
      value: 'K',
      min: 1,
      default: 2,
      description:
        "rollouts per task that measuring this learner's start pass rates costs a method reading them (charged K × tasks)",
    },
    every: { type: 'int', value: 'N', min: 1, default: 4, description: 'held-out accuracy every N steps' },
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
      description:
        "weight ρ of BOTS's reference (implicit) evidence in bots_ref_tuned (the others run at the paper's ρ)",
    },
    selectors: {
      type: 'list',
      value: 'A,B',
      choices: ['all', ...CURRICULUM_SELECTORS],
      default: 'random,bots,bots_ref,shared_ability,pcl,oracle',
      description:
        'selectors to compare (random, the baseline, always runs; all = every method at its published defaults and the oracles)',
    },
    smoke: {
      type: 'boolean',
      description:
        'a tiny configuration for CI (seeds 6–7 unless --seeds, 4 updates (at most 8), rounds of 8 tasks × 4 rollouts, 3 selectors unless --selectors) whose output shape a test checks',
    },
    'overhead-tasks': {
      type: 'int',
      value: 'N',
      min: 0,
      default: 0,
      description:
        'also time each selector step on a simulated pool of N tasks (e.g. 1000000; 0 = not measured)',
    },
    jobs: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 1,
      description:
        'run the seeds in N processes (contiguous seed ranges, each run appended to --curves or a scratch file); the results do not depend on N',
    },
    ...POOL_REGIME_OPTIONS,
    html: {
      type: 'string',
      value: 'FILE',
      description: 'also write the learning curves and the tables as one HTML page',
    },
    ...PROTOCOL_RUN_OPTIONS,
  },
  examples: [
    'winnow bench curriculum --selectors all --json > curriculum.json',
    'winnow bench curriculum --learner arithmetic --selectors all --json > arithmetic.json',
    'winnow bench curriculum --seeds 5 --first-seed 1 --selectors random,bots,shared_ability',
    'winnow bench curriculum --smoke --json',
    'winnow bench curriculum --selectors all --jobs 2 --curves curriculum.jsonl --json > curriculum.json',
    'winnow bench curriculum --pool-unusable 0.2 --selectors random,pcl,shared_ability --json',
  ],
} as const satisfies CommandSpec;
