// The command line of `winnow bench replay`, in a light module (bench/bench-specs.ts lists it).
import type { CommandSpec } from '../../src/cli/command-spec.ts';
import { BENCH_LEARNER_NAMES } from '../learning-curriculum/learners.ts';
import { PROTOCOL_RUN_OPTIONS } from '../protocol/run-options.ts';
import { REPLAY_METHOD_NAMES } from './methods.ts';

export const REPLAY_BENCH_SPEC = {
  name: 'bench replay',
  args: '',
  maxArgs: 0,
  summary:
    'Experience replay on the real tiny learners under the shared protocol: every replay method (exgrpo, repo per ' +
    'retrieval strategy, dots_replay, uniform, version_priority, advantage_priority) against fifo (no replay) at equal ' +
    "rollouts; per method the AUC of held-out accuracy against rollouts and accuracy at 25/50/100% of fifo's rollouts " +
    'with paired-seed 90% intervals, gradient updates, and the rows trained (fresh and replayed) per update.',
  options: {
    learner: {
      type: 'list',
      value: 'A,B',
      choices: ['all', ...BENCH_LEARNER_NAMES],
      default: 'all',
      description:
        'the real learners: curriculum (800 graded additions), arithmetic (2,394 mixed-operator tasks), all',
    },
    methods: {
      type: 'list',
      value: 'A,B',
      choices: ['all', ...REPLAY_METHOD_NAMES],
      default: 'all',
      description: 'replay methods to compare (fifo, the baseline, always runs; all = every method)',
    },
    seeds: { type: 'int', value: 'K', min: 1, default: 10, description: 'report seeds per method' },
    'first-seed': { type: 'int', value: 'N', min: 1, default: 6, description: 'seeds run are N…N+K−1' },
    steps: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 24,
      description: "fifo's updates per run; its rollouts set the budget every other method spends",
    },
    'max-steps': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 72,
      description: 'the most updates a method may take to spend the budget',
    },
    every: { type: 'int', value: 'N', min: 1, default: 4, description: 'held-out accuracy every N steps' },
    'train-groups': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 8,
      description: 'fresh groups with a gradient (mixed rewards) each step collects',
    },
    'batch-tasks': { type: 'int', value: 'N', min: 1, default: 16, description: 'tasks per rollout round' },
    'max-rounds': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 8,
      description: 'rollout rounds a step may take to find its groups',
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
    smoke: {
      type: 'boolean',
      description:
        'a tiny configuration for CI (seed 6 unless --seeds, 3 updates (at most 6), rounds of 8 tasks × 4 rollouts) whose output shape a test checks',
    },
    ...PROTOCOL_RUN_OPTIONS,
  },
  examples: [
    'winnow bench replay --methods all --json > replay.json',
    'winnow bench replay --learner arithmetic --methods fifo,exgrpo,repo_variance --seeds 3',
    'winnow bench replay --seeds 10 --curves replay-runs.jsonl --json > replay.json',
    'winnow bench replay --smoke --json',
  ],
} as const satisfies CommandSpec;
