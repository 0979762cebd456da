// The command line of `winnow bench judge`, in a light module (no verifier loaded for --help).
import type { CommandSpec } from '../src/cli/command-spec.ts';

export const JUDGE_BENCH_SPEC = {
  name: 'bench judge',
  args: '',
  maxArgs: 0,
  summary:
    'Math answer judging: the MATH-grade verifier on the golden suite, on MATH-style worked solutions and on GSM8K-style responses, against the ' +
    'numbers-only judge it replaced measured in the same run; judgements/s, p50/p99 latency, worst case on hostile input.',
  options: {
    responses: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 10_000,
      description: 'GSM8K-style responses to judge (made from datasets/gsm8k/test.jsonl)',
    },
    rounds: {
      type: 'int',
      value: 'K',
      min: 1,
      default: 10,
      description: 'passes over the golden suite (tests/verify/fixtures/math-golden.jsonl)',
    },
    seed: { type: 'int', value: 'N', min: 0, default: 1, description: 'seed of the GSM8K-style responses' },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  notes: [
    'The verdict cache is off while timing: every judgement is computed.',
    '"per CPU s" is judgements per second of this process\'s CPU time: the one-core rate, whatever else the machine runs; "vs baseline" compares those.',
  ],
  examples: ['winnow bench judge', 'winnow bench judge --responses 2000 --rounds 3 --json'],
} as const satisfies CommandSpec;
