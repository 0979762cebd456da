import type { CommandSpec } from '../src/cli/command-spec.ts';

/** `winnow bench loop`: kept in its own light module like judge-spec.ts (bench-specs.ts lists it). */
export const LOOP_BENCH_SPEC = {
  name: 'bench loop',
  args: '',
  maxArgs: 0,
  summary:
    "The RFT loop's own cost: a sync-mode run with a zero-cost rollout model and a zero-cost trainer, " +
    'framework time per step broken down by stage, against raw LanceDB add + take of one step measured in the same run.',
  options: {
    steps: { type: 'int', value: 'N', min: 1, default: 40, description: 'timed explorer steps' },
    warmup: { type: 'int', value: 'N', min: 0, default: 3, description: 'untimed steps first' },
    tasks: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 32,
      description: 'tasks per step (explorer.batchTasks)',
    },
    repeat: { type: 'int', value: 'N', min: 1, default: 8, description: 'rollouts per task' },
    sampler: {
      type: 'string',
      value: 'NAME',
      choices: ['fifo', 'lifo', 'uniform', 'version_priority', 'advantage_priority'],
      default: 'fifo',
      description: 'the buffer sampler',
    },
    seed: { type: 'int', value: 'N', min: 0, default: 1, description: 'run seed' },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  examples: ['winnow bench loop', 'winnow bench loop --steps 100 --sampler version_priority --json'],
} as const satisfies CommandSpec;
