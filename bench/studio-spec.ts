import type { CommandSpec } from '../src/cli/command-spec.ts';

/** `winnow bench studio`: kept in its own light module like loop-spec.ts (bench-specs.ts lists it). */
export const STUDIO_BENCH_SPEC = {
  name: 'bench studio',
  args: '',
  maxArgs: 0,
  summary:
    "The Studio's task browser on a large task table: request time of the first page, a filtered page and a sorted page " +
    '(p50/p95 over repeated requests through the HTTP server), against a plain LanceDB query of the same page in the same run.',
  options: {
    rows: {
      type: 'int',
      value: 'N',
      min: 100,
      default: 1_000_000,
      description: 'rows in the synthetic task table',
    },
    page: { type: 'int', value: 'N', min: 1, max: 500, default: 50, description: 'rows per page' },
    repeats: { type: 'int', value: 'N', min: 1, default: 20, description: 'timed requests per measurement' },
    db: {
      type: 'string',
      value: 'DIR',
      description:
        'keep the table in this folder (reused when it already holds --rows rows); default: a temp folder',
    },
    json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  },
  notes: ['Target (issue #14): first page and filtered page p50 ≤ 100 ms at 1M rows.'],
  examples: ['winnow bench studio', 'winnow bench studio --rows 100000 --json'],
} as const satisfies CommandSpec;
