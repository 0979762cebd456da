// `winnow export`'s definition (options, help, docs/cli.md), apart from what runs it (export-command.ts),
// so that help and the command table load no more than this.
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS } from '../../export/registry.ts';
import { type CommandSpec, DB_OPTION, ROW_FILTER_OPTIONS } from '../command-spec.ts';

export const exportSpec = {
  name: 'export',
  args: '',
  maxArgs: 0,
  summary:
    'Write a table to Parquet or JSONL, as stored (format winnow) or in a trainer-ready format (verl, TRL). Reads the database only.',
  options: {
    out: {
      type: 'string',
      value: 'FILE',
      description: 'output file, ending in .jsonl, .ndjson or .parquet (required)',
    },
    format: {
      type: 'string',
      value: 'FMT',
      description: 'layout of the rows (docs/exports.md)',
      choices: EXPORT_FORMAT_NAMES,
      default: 'winnow',
    },
    db: DB_OPTION,
    table: {
      type: 'string',
      value: 'T',
      description: "table to export (default 'tasks'; with --run of an RFT run, its buffer table)",
    },
    version: { type: 'string', value: 'N|TAG', description: 'export the table as of this version or tag' },
    ...ROW_FILTER_OPTIONS,
    split: { type: 'string', value: 'NAME', description: 'verl: extra_info.split of every row' },
    ability: {
      type: 'string',
      value: 'NAME',
      description: "verl: ability of every row (default: the task's meta.ability, else 'general')",
    },
    'data-source': {
      type: 'string',
      value: 'NAME',
      description: "verl: data_source of every row (default: the task's taskset)",
    },
    'reward-style': {
      type: 'string',
      value: 'NAME',
      description: 'verl: reward_model.style',
      default: 'rule',
    },
    'sft-pick': {
      type: 'string',
      value: 'WHICH',
      description: 'trl-sft, trl-messages: the best rollout of each group, or every rollout',
      choices: ['best', 'all'],
      default: 'best',
    },
    'min-reward': {
      type: 'number',
      value: 'R',
      description: 'trl-sft, trl-messages: leave out rollouts with a lower reward',
    },
    'min-margin': {
      type: 'number',
      value: 'M',
      description: 'trl-dpo: leave out pairs whose chosen−rejected reward margin is smaller (ties always)',
      min: 0,
      default: 0,
    },
    conversational: {
      type: 'boolean',
      description: 'trl-*: prompts and completions as chat turns even when no row has messages',
    },
    'json-text': {
      type: 'list',
      value: 'PATHS',
      description: 'nested fields stored as JSON text instead of typed (meta.source,info.tags[])',
    },
  },
  notes: [
    'Formats (docs/exports.md):',
    ...EXPORT_FORMATS.map((f) => `- ${f.name}: ${f.summary}`),
    '',
    'verl and trl-prompt read a task table; trl-sft, trl-messages and trl-dpo an experience table (--table or --run).',
    'Rows an export leaves out (ties, low rewards…) are listed with their reason in FILE.dropped.jsonl.',
    'Rows with malformed cells (written by other tools) are skipped, one warning line each, and counted.',
  ],
  examples: [
    'winnow export --out tasks.jsonl',
    'winnow export --taskset gsm8k --where "answer IS NOT NULL AND source_row < 100" --out gsm8k.parquet',
    'winnow export --format verl --split train --out train.parquet',
    'winnow export --format trl-dpo --run rft1 --min-margin 0.5 --out pairs.parquet',
  ],
} as const satisfies CommandSpec;
