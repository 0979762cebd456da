// The command line of every benchmark, in one light module: `winnow bench --help`, each bench's
// --help, its parser and docs/cli.md read these, without loading the benchmarks themselves.
import type { CommandSpec } from '../src/cli/command-spec.ts';
import { AGENTS_BENCH_SPEC } from './agents-spec.ts';
import { JUDGE_BENCH_SPEC } from './judge-spec.ts';
import { CURRICULUM_BENCH_SPEC } from './learning-curriculum/spec.ts';
import { LOOP_BENCH_SPEC } from './loop-spec.ts';
import { REPLAY_BENCH_SPEC } from './replay/spec.ts';

export { REPLAY_BENCH_SPEC };

import { SCALE_BENCH_SPEC } from './scale-spec.ts';
import { ALL_SELECTORS } from './selection/lineup.ts';
import { SCENARIO_NAMES } from './selection/scenarios.ts';
import { SWEEP_FACTORS } from './selection/sweep-points.ts';
import { STUDIO_BENCH_SPEC } from './studio-spec.ts';

const seed = {
  type: 'int',
  value: 'N',
  min: 0,
  default: 1,
  description: 'seed of the synthetic data',
} as const;
const json = { type: 'boolean', description: 'print the results as JSON on stdout' } as const;

export const INGEST_BENCH_SPEC = {
  name: 'bench ingest',
  args: '',
  maxArgs: 0,
  summary:
    'Task-pipeline throughput: a synthetic task file through read → 5 cleaning/filter operators → exact dedup → LanceDB, ' +
    'against a baseline with no operators measured in the same run; also MinHash near-dedup throughput.',
  options: {
    rows: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 1_000_000,
      description:
        "rows in the generated task file (the bench's synthetic file; with --pipeline issue40, issue 40's question/answer file from bench/engine/qa-file.ts; with --pipeline dj10, the CJK crawl file from bench/ingest/cjk-file.ts)",
    },
    docs: {
      type: 'int',
      value: 'N',
      min: 0,
      default: 100_000,
      description: 'documents for the near-dedup comparison (0: skip it)',
    },
    input: {
      type: 'string',
      value: 'FILE',
      description: 'measure this task file instead of the synthetic one (any format the pipeline reads)',
    },
    mapping: {
      type: 'list',
      value: 'KEY=COL,…',
      description:
        'with --input: task field = column pairs (id, prompt, answer); default: read from the file (prompt: the first of question, prompt, problem, instruction, query, text, input; answer: answer, solution, response, output, target; id: an id column if there is one, else content-hash ids)',
    },
    'no-python': {
      type: 'boolean',
      description:
        'skip the plain per-row Python script (bench/ingest_baseline.py) that otherwise runs on the same file when python3 exists',
    },
    runs: {
      type: 'list',
      value: 'RUN,…',
      choices: ['floor', 'baseline', 'full', 'full-workers', 'full-duckdb'],
      description:
        'which runs to measure (default: floor, baseline, full, full-workers; full-workers is the full pipeline with workers: auto, full-duckdb with engine: duckdb; e.g. --runs full for a 10M-row peak RSS)',
    },
    pipeline: {
      type: 'string',
      value: 'NAME',
      choices: ['cleaning', 'issue40', 'dj10'],
      default: 'cleaning',
      description:
        'the operator chain: cleaning (strip_html, NFKC, whitespace, length, special-char ratio, exact dedup), issue40 (whitespace, length 10..2000, special-char ≤ 0.25, alnum ≥ 0.5, word 2-gram repetition ≤ 0.5, exact dedup) or dj10 (the 10-operator Data-Juicer recipe bench/ingest/dj10-cjk.yaml over English/Chinese/Japanese crawl text, bench/ingest/cjk-file.ts)',
    },
    anchor: {
      type: 'boolean',
      description:
        "also run the pipeline as a plain per-row Python script (bench/ingest_baseline.py; dj10: bench/ingest_dj10.py) and in Polars (bench/ingest_polars.py; dj10: bench/ingest_dj10.py --engine polars; where python3 -c 'import polars' works) on the same file, and print each run's speed as a ratio to theirs; without --runs, the full pipeline is then measured on both Winnow paths (engine: rows and engine: duckdb)",
    },
    workers: {
      type: 'string',
      value: 'N|auto',
      default: '0',
      description:
        "the pipelines' workers setting (threads for the row-wise operators and near-dedup signatures; 0, the pipeline's own default: main thread only)",
    },
    seed,
    json,
  },
  examples: [
    'winnow bench ingest --rows 100000 --docs 20000',
    'winnow bench ingest --input data/train.jsonl --mapping prompt=problem,answer=solution --json',
    'winnow bench ingest --input qa.jsonl --pipeline issue40 --anchor --runs full --docs 0',
    'winnow bench ingest --pipeline issue40 --rows 10000000 --runs full --docs 0 --no-python',
    'winnow bench ingest --pipeline dj10 --rows 1000000 --anchor --runs full,full-duckdb --docs 0',
  ],
} as const satisfies CommandSpec;

export const BUFFER_BENCH_SPEC = {
  name: 'bench buffer',
  args: '',
  maxArgs: 0,
  summary:
    'Experience-buffer writes and sampling on LanceDB, each sampler against raw LanceDB queries measured in the same run.',
  options: {
    rows: {
      type: 'int',
      value: 'N',
      min: 256,
      default: 1_000_000,
      description: 'rows in the table sampled from',
    },
    'write-rows': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 100_000,
      description: 'experiences written in the write test',
    },
    samples: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 40,
      description: 'sample(256) calls timed per sampler',
    },
    seed,
    json,
  },
  examples: ['winnow bench buffer --rows 100000 --write-rows 20000 --samples 10'],
} as const satisfies CommandSpec;

export const SELECTION_BENCH_SPEC = {
  name: 'bench selection',
  args: '',
  maxArgs: 0,
  summary:
    'Online task selection on the learner simulator: every selector against random, over several seeds and scenarios.',
  options: {
    scenario: {
      type: 'string',
      value: 'NAME',
      choices: ['all', ...SCENARIO_NAMES],
      default: 'default',
      description: 'the scenario to run, or all',
    },
    seeds: { type: 'int', value: 'K', min: 1, default: 5, description: 'seeds per selector' },
    steps: { type: 'int', value: 'T', min: 1, description: "steps per run (default: the scenario's)" },
    selectors: {
      type: 'list',
      value: 'A,B',
      choices: ['all', ...ALL_SELECTORS.map((s) => s.name)],
      description:
        'selectors to compare (random always runs; default: the standard line-up; all = random, bots, shared_ability and the selection zoo)',
    },
    'first-seed': {
      type: 'int',
      value: 'N',
      min: 1,
      default: 1,
      description: 'seeds run are N…N+K−1 (zoo defaults were tuned on 1–5; report on 6–10)',
    },
    'overhead-tasks': {
      type: 'int',
      value: 'N',
      min: 0,
      default: 0,
      description: 'also time each selector step on a pool of N tasks (e.g. 1000000; 0 = not measured)',
    },
    sweep: {
      type: 'string',
      value: 'FACTOR',
      choices: ['all', ...SWEEP_FACTORS],
      description:
        'regime sweep instead of the scenarios: the default scenario with one factor varied (share of too-easy/too-hard tasks, group size 4–32, reward flip probability 0–0.3, pool 1k–1M tasks); every method (default --selectors all), seeds from --first-seed (default 6 here)',
    },
    'pool-sizes': {
      type: 'list',
      value: 'N,…',
      description: 'with --sweep pool-size: the pool sizes (default 1000,10000,100000,1000000)',
    },
    points: {
      type: 'list',
      value: 'I,…',
      description:
        "with --sweep FACTOR (one factor): run only these of its points, 1-based in the sweep's order (e.g. 4,5,6: one process per part of a sweep)",
    },
    html: {
      type: 'string',
      value: 'FILE',
      description: 'also write the leaderboard with learning curves as HTML',
    },
    json,
    quiet: { type: 'boolean', description: 'no progress lines on stderr' },
  },
  examples: [
    'winnow bench selection --seeds 3',
    'winnow bench selection --scenario all --json',
    'winnow bench selection --selectors all --first-seed 6 --overhead-tasks 1000000 --json --html zoo.html',
    'winnow bench selection --sweep all --json',
    'winnow bench selection --sweep easy-hard --points 4,5,6 --seeds 10 --json',
  ],
} as const satisfies CommandSpec;

/** The flags bench/learning and bench/replay share: seeds, steps and how often accuracy is measured. */
const curveOptions = <S extends number, E extends number>(what: string, steps: S, every: E) =>
  ({
    seeds: { type: 'int', value: 'K', min: 1, default: 3, description: `seeds per ${what} (seeds 1…K)` },
    steps: { type: 'int', value: 'N', min: 1, default: steps, description: 'explorer steps per run' },
    every: {
      type: 'int',
      value: 'N',
      min: 1,
      default: every,
      description: 'measure held-out accuracy every N steps',
    },
  }) as const;

/** The selectors bench/learning knows how to configure. */
export const LEARNING_SELECTORS = ['random', 'bots', 'shared_ability'] as const;

export const LEARNING_BENCH_SPEC = {
  name: 'bench learning',
  args: '',
  maxArgs: 0,
  summary:
    'Task selection on the real tiny learner: the arithmetic RFT loop with each selector over several seeds; ' +
    "steps and rollouts to reach random's final held-out accuracy, relative to random.",
  options: {
    ...curveOptions('selector', 80, 5),
    selectors: {
      type: 'list',
      value: 'A,B',
      choices: LEARNING_SELECTORS,
      default: LEARNING_SELECTORS.join(','),
      description: 'selectors to compare (random, the baseline, always runs)',
    },
    json,
  },
  examples: ['winnow bench learning --seeds 2 --steps 40 --selectors random,bots'],
} as const satisfies CommandSpec;

/** Every benchmark, in the order `winnow bench --help` lists them. */
export const TOKENIZE_BENCH_SPEC = {
  name: 'bench tokenize',
  args: '',
  maxArgs: 0,
  summary:
    'Tokenizer throughput: GSM8K test questions (repeated to --prompts) through Qwen3 with transformers.js, ' +
    'against the same texts through @lenml/tokenizers measured in the same run.',
  options: {
    prompts: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 100_000,
      description: 'prompts to encode (datasets/gsm8k/test.jsonl questions, repeated)',
    },
    json,
  },
  examples: ['winnow bench tokenize', 'winnow bench tokenize --prompts 10000 --json'],
} as const satisfies CommandSpec;

export const OPS_BENCH_SPEC = {
  name: 'bench ops',
  args: '',
  maxArgs: 0,
  summary:
    'Documents/s of every task operator on GSM8K-sized rows (two shards at once for row-wise operators, one for dedups), ' +
    'each against a no-op measured in the same run; a 10-operator Data-Juicer recipe through winnow run against the ' +
    'same recipe with no operators; language_id_filter accuracy on the labelled samples; peak RSS.',
  options: {
    rows: {
      type: 'int',
      value: 'N',
      min: 100,
      default: 1_000_000,
      description: 'rows per operator (GSM8K test questions with their answers, a number varied per lap)',
    },
    ops: {
      type: 'list',
      value: 'A,B',
      description: 'only these operators (registry names; default: every measurable one)',
    },
    'model-rows': {
      type: 'int',
      value: 'N',
      min: 100,
      default: 100_000,
      description:
        'at most this many rows for the operators that run a model per row (tokenizer, language detector, language model)',
    },
    'recipe-rows': {
      type: 'int',
      value: 'N',
      min: 0,
      description: 'rows for the recipe through winnow run (default: --rows; 0 skips it)',
    },
    batch: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 1000,
      description: 'rows per operator batch',
    },
    seed,
    json,
  },
  examples: [
    'winnow bench ops --rows 20000',
    'winnow bench ops --ops language_id_filter,near_dedup --recipe-rows 0 --json',
  ],
} as const satisfies CommandSpec;

export const MINHASH_BENCH_SPEC = {
  name: 'bench minhash',
  args: '',
  maxArgs: 0,
  summary:
    "near_dedup's recall on planted pairs of known Jaccard similarity (bands 0.70–0.75, 0.75–0.80, 0.80–0.85) with " +
    "the banding a Data-Juicer recipe gets (its optimiser's bands × rows), against the analytic S-curve of that banding; " +
    'the previous 16 × 16 verified banding beside it.',
  options: {
    pairs: {
      type: 'int',
      value: 'N',
      min: 10,
      default: 2000,
      description: 'planted pairs per similarity band',
    },
    permutations: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 256,
      description: "num_permutations (Data-Juicer's default 256)",
    },
    threshold: {
      type: 'number',
      value: 'X',
      min: 0.01,
      max: 1,
      default: 0.7,
      description: "jaccard_threshold (Data-Juicer's default 0.7)",
    },
    seed,
    json,
  },
  examples: ['winnow bench minhash', 'winnow bench minhash --pairs 500 --json'],
} as const satisfies CommandSpec;

export const BENCH_SPECS = [
  INGEST_BENCH_SPEC,
  SELECTION_BENCH_SPEC,
  LEARNING_BENCH_SPEC,
  CURRICULUM_BENCH_SPEC,
  BUFFER_BENCH_SPEC,
  REPLAY_BENCH_SPEC,
  TOKENIZE_BENCH_SPEC,
  JUDGE_BENCH_SPEC,
  LOOP_BENCH_SPEC,
  STUDIO_BENCH_SPEC,
  OPS_BENCH_SPEC,
  SCALE_BENCH_SPEC,
  AGENTS_BENCH_SPEC,
  MINHASH_BENCH_SPEC,
] as const;
