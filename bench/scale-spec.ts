// The command line of `winnow bench scale`, in a light module (no queue client loaded for --help).
import type { CommandSpec } from '../src/cli/command-spec.ts';

export const SCALE_BENCH_SPEC = {
  name: 'bench scale',
  args: '',
  maxArgs: 0,
  summary:
    'Scale-out rollout throughput: task groups through the Redis/BullMQ queue to 1, 2 and 4 `winnow worker` processes ' +
    '(the same concurrency each) against a local OpenAI-compatible server with a fixed latency per request; ' +
    'ratios to 1 worker measured in the same run; then ingest of a generated JSONL (1M rows by default) through a task pipeline with 1 vs 2 pipeline workers. ' +
    'Needs redis-server (scripts/test-queue-deps.sh).',
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
    'ingest-rows': {
      type: 'int',
      value: 'N',
      min: 0,
      default: 1_000_000,
      description:
        'rows of the ingest comparison (a task pipeline with 1 vs 2 `winnow worker --role pipeline` processes); 0 skips it',
    },
    'ingest-workers': {
      type: 'list',
      value: 'N,…',
      default: '1,2',
      description:
        'pipeline worker counts of the ingest comparison (each against one process, in the same run)',
    },
    'ingest-paths': {
      type: 'list',
      value: 'encoded|json',
      default: 'encoded',
      description:
        "how workers hand rows to the coordinator: 'encoded' (Arrow in the table's layout; the coordinator decodes no row) and/or 'json' (the coordinator decodes them and runs the chain after the row-wise steps)",
    },
    simulate: {
      type: 'list',
      value: 'N,…',
      default: '4',
      description:
        "worker counts to simulate from each queued ingest run's CPU seconds, as if each process had a core (for counts this machine has no cores for)",
    },
    'no-rollouts': { type: 'boolean', description: 'skip the rollout measurement (ingest only)' },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  notes: [
    'Each worker builds the run once (a warm-up round that is not timed), then the timed round runs.',
    'Ingest: the coordinator (this process) cuts the file into about 32 line-aligned shards, runs exact dedup and writes LanceDB; each worker reads, maps and cleans its shards (and, on the encoded path, encodes their rows in the table layout). Each count gets an untimed warm-up run first.',
    "Simulated counts (each process on a core of its own): the coordinator's serial CPU seconds (before the first shard is queued, after the last is landed) plus the longest of: one shard's worker CPU plus the coordinator's landing CPU; the workers' CPU shared by N plus one shard's landing; redis's CPU. Compared with the single-process run's CPU seconds. The machine's load average is printed with the results.",
  ],
  examples: [
    'winnow bench scale',
    'winnow bench scale --workers 1,4 --latency 100 --json',
    'winnow bench scale --workers 1 --seconds 1 --ingest-rows 100000',
    'winnow bench scale --no-rollouts --ingest-rows 200000 --ingest-paths encoded,json --simulate 2,4 --json',
  ],
} as const satisfies CommandSpec;
