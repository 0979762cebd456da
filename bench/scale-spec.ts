// The command line of `winnow bench scale`, in a light module (no queue client loaded for --help).
import type { CommandSpec } from '../src/cli/command-spec.ts';

export const SCALE_BENCH_SPEC = {
  name: 'bench scale',
  args: '',
  maxArgs: 0,
  summary:
    'Scale-out rollout throughput: task groups through the Redis/BullMQ queue to 1, 2 and 4 `winnow worker` processes ' +
    '(the same concurrency each) against a local OpenAI-compatible server with a fixed latency per request; ' +
    'ratios to 1 worker measured in the same run. Needs redis-server (scripts/test-queue-deps.sh).',
  options: {
    workers: {
      type: 'list',
      value: 'N,…',
      default: '1,2,4',
      description: 'worker process counts to measure (the first is the baseline)',
    },
    concurrency: { type: 'int', value: 'N', min: 1, default: 4, description: 'jobs in flight per worker' },
    latency: {
      type: 'int',
      value: 'MS',
      min: 0,
      default: 200,
      description: "the test server's latency per request",
    },
    seconds: {
      type: 'int',
      value: 'S',
      min: 1,
      default: 4,
      description:
        'groups per measurement: what 1 worker would finish in about this long, times the worker count',
    },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  notes: [
    'Each worker builds the run once (a warm-up round that is not timed), then the timed round runs.',
    'Pipeline shards (role pipeline) are not built, so the ingest comparison reports "not built".',
  ],
  examples: ['winnow bench scale', 'winnow bench scale --workers 1,4 --latency 100 --json'],
} as const satisfies CommandSpec;
