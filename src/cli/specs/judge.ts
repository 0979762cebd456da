// `winnow judge`'s definition (options, help, docs/cli.md), apart from what runs it (judge-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION } from '../command-spec.ts';

export const JUDGE_SPEC = {
  name: 'judge',
  args: '',
  maxArgs: 0,
  summary:
    'Re-score rows (rollouts, any JSONL/Parquet file, a LanceDB table or a whole run) with a registered reward; never modifies the input.',
  options: {
    reward: {
      type: 'string',
      value: 'NAME',
      description:
        "a registered reward function, e.g. math or exact_match (docs/rewards.md); required unless --run (default: the run's reward)",
    },
    params: {
      type: 'string',
      value: 'JSON',
      description: "the reward's params as a JSON object, e.g. '{\"tolerance\":1e-4}'",
    },
    input: {
      type: 'string',
      value: 'FILE',
      description: 'rows to score: .jsonl, .json, .csv, .parquet, .arrow (or --table)',
    },
    table: {
      type: 'string',
      value: 'T',
      description:
        "score the rows of this LanceDB table instead of a file (with --run: instead of the run's buffer)",
    },
    run: {
      type: 'string',
      value: 'ID',
      description:
        "re-score an RFT run's experiences, each against its task's answer (the run's task file or table, then the tasks table)",
    },
    workers: {
      type: 'int',
      value: 'N',
      min: 1,
      max: 64,
      description:
        'judgement worker threads for the math reward (default 2, or WINNOW_JUDGE_WORKERS); each judgement is stopped at its time limit',
    },
    db: DB_OPTION,
    output: {
      type: 'string',
      value: 'FILE',
      description: 'write the scored rows here (.jsonl or .parquet); default: JSONL on stdout',
    },
    'response-field': {
      type: 'string',
      value: 'F',
      default: 'response',
      description: 'the field holding the response (a dotted path reads nested fields)',
    },
    'answer-field': {
      type: 'string',
      value: 'F',
      default: 'answer',
      description:
        "the field holding the reference answer; a dotted path reads nested fields, JSON text too (info.answer, info.meta.gold); rows without one: their task's answer",
    },
    quiet: { type: 'boolean', description: 'no progress bar on stderr' },
  },
  notes: [
    'Each output row is the input row, in input order, plus reward and info (what was extracted, how, and the reason).',
    'An input row that already has reward or info keeps them as reward_before and info_before.',
    'A row that cannot be judged (a missing field, an unreadable line, a reward error) gets reward 0 and info.reason.',
    'The summary (rows, mean reward, timeouts, unparseable…) goes to stderr.',
    "With --run, each experience's answer comes from the run's own tasks (its task file through its mapping, or its task table; relative paths from the config's folder), then the tasks table; the reward defaults to the run's.",
    'math judgements run on worker threads (--workers): one still running at the time limit (timeLimitMs, 200 ms) is stopped and scores 0, reason timeout.',
  ],
  examples: [
    'winnow judge --reward math --input rollouts.jsonl --output scored.jsonl',
    'winnow judge --reward math --table rft_buffer --output rescored.parquet',
    'winnow judge --run arithmetic-bots-1 --output rescored.jsonl',
    'winnow judge --reward math --input scored.jsonl --answer-field info.meta.gold',
    'winnow judge --reward math --params \'{"tolerance":1e-4}\' --input math.parquet --response-field completion --answer-field solution',
  ],
} as const satisfies CommandSpec;
