import type { CommandSpec } from '../src/cli/command-spec.ts';

/** `winnow bench agents`: kept in its own light module like loop-spec.ts (bench-specs.ts lists it). */
export const AGENTS_BENCH_SPEC = {
  name: 'bench agents',
  args: '',
  maxArgs: 0,
  summary:
    'The tool-use demo (pipelines/arithmetic-tools.yaml): the tiny policy trained by RL with a calculator tool against ' +
    'the same run without it (same start, same length) on each seed; tool-use rates and held-out accuracy, with ratios to the no-tool run.',
  options: {
    seeds: { type: 'list', value: 'N,…', description: 'run seeds (default: 1,2,3)' },
    steps: { type: 'int', value: 'N', min: 4, default: 30, description: 'explorer steps per run' },
    'tool-cost': {
      type: 'number',
      value: 'X',
      min: 0,
      description: "the environment's reward cost of a calculator call (default: the pipeline's)",
    },
    out: { type: 'string', value: 'FILE', description: 'also write every curve as JSON to FILE' },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  examples: ['winnow bench agents', 'winnow bench agents --seeds 1 --steps 10 --json'],
} as const satisfies CommandSpec;
