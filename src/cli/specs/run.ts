// `winnow run`'s definition (options, help, docs/cli.md), apart from what runs it (run-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

export const RUN_SPEC = {
  name: 'run',
  args: 'PIPELINE.yaml',
  maxArgs: 1,
  summary:
    'Run a pipeline. A task pipeline (kind: tasks, the default) reads, cleans and lands a task set; ' +
    'an RFT run (kind: rft) explores, keeps experiences in a buffer and trains.',
  options: {
    db: {
      type: 'string',
      value: 'DIR',
      description: "database folder (default: the config's db:, relative to the YAML, else ./.winnow/db)",
    },
    seed: {
      type: 'int',
      value: 'N',
      description: "seed for every random choice (overrides the config's seed)",
    },
    strict: {
      type: 'boolean',
      only: 'tasks',
      description: 'land nothing if any input row cannot be read or mapped (exit 3)',
    },
    'keep-partial': {
      type: 'boolean',
      only: 'tasks',
      description:
        'on failure keep the tasks committed so far, marked by their run_id (default: roll the task table back)',
    },
    json: { type: 'boolean', description: 'print the full report as JSON on stdout' },
    quiet: { type: 'boolean', description: 'no progress or report on stdout' },
    steps: {
      type: 'int',
      value: 'N',
      min: 1,
      only: 'rft',
      description: 'explorer steps (overrides lifecycle.steps)',
    },
    run: {
      type: 'string',
      value: 'ID',
      only: 'rft',
      description: 'name the new run, or the run --resume continues (default <name>-<n>)',
    },
    resume: {
      type: 'boolean',
      only: 'rft',
      description:
        "continue the latest run of the config's name (or --run ID) from its last checkpoint; refused when the config differs in a key that changes results",
    },
    overwrite: {
      type: 'string',
      value: 'RUN',
      only: 'rft',
      description: 'delete run RUN (tables, rejected rows, folder, record) and reuse its id',
    },
    'runs-dir': {
      type: 'string',
      value: 'DIR',
      only: 'rft',
      description: 'folder holding one folder per run (default ./.winnow/runs)',
    },
    'run-dir': { type: 'string', value: 'DIR', only: 'rft', description: "this run's exact folder" },
    queue: {
      type: 'string',
      value: 'URL',
      description:
        'coordinate: hold the run’s lease in Redis at URL (redis://host:port) and send rollouts (RFT runs) or input shards (task pipelines) to `winnow worker` processes (docs/scale-out.md)',
    },
    'shard-bytes': {
      type: 'int',
      value: 'N',
      min: 1024,
      only: 'tasks',
      description:
        'with --queue: cut JSONL inputs into shards of about N bytes at line starts (default 8388608; other formats: one shard per file)',
    },
    'storage-option': {
      type: 'list',
      value: 'KEY=VALUE',
      description:
        'LanceDB storage options for a database URI (--db s3://bucket/path): e.g. aws_region=eu-west-1,allow_http=true; added to the config’s storageOptions (docs/scale-out.md)',
    },
    'lease-ttl': {
      type: 'int',
      value: 'S',
      min: 1,
      description:
        'with --queue: seconds after a crashed coordinator’s last heartbeat until its lease lapses (default 30)',
    },
    'overwrite-export': {
      type: 'boolean',
      only: 'recipe',
      description: "Data-Juicer recipes: replace the recipe's export_path when it exists",
    },
  },
  notes: [
    "Paths in a pipeline resolve against the YAML file's folder; the report prints them resolved.",
    'A Data-Juicer recipe (a top-level process: list) runs as it is; its paths resolve against the working folder as in Data-Juicer (docs/recipes.md).',
  ],
  examples: [
    'winnow run pipelines/gsm8k-tasks.yaml --db .winnow/db',
    'winnow run pipelines/arithmetic-bots.yaml --steps 10 --run-dir /tmp/bots',
  ],
} as const satisfies CommandSpec;
