// `winnow worker`'s definition (options, help, docs/cli.md), apart from what runs it (worker-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

export const WORKER_SPEC = {
  name: 'worker',
  args: '',
  maxArgs: 0,
  summary:
    'Take jobs from a scale-out queue (docs/scale-out.md): rollout jobs (--role explorer) or task-pipeline shards (--role pipeline) of the runs started with `winnow run --queue`. ' +
    'Start any number, on any machine that reaches Redis and the model server and sees the same paths; they may join and leave during a run.',
  options: {
    queue: {
      type: 'string',
      value: 'URL',
      description: 'the Redis the coordinators use (redis://host:port)',
    },
    role: {
      type: 'string',
      value: 'ROLE',
      choices: ['explorer', 'pipeline'],
      default: 'explorer',
      description:
        'explorer: rollout jobs; pipeline: task-pipeline shards (a byte range or file of the input → cleaned rows)',
    },
    concurrency: {
      type: 'int',
      value: 'N',
      min: 1,
      default: 4,
      description: 'jobs (task groups, or pipeline shards) run at once by this process',
    },
    'visibility-timeout': {
      type: 'int',
      value: 'MS',
      min: 200,
      default: 30_000,
      description:
        'a job whose worker stops renewing its lock this long (killed, hung) is taken back and redone elsewhere',
    },
  },
  notes: [
    'A worker writes nothing: each group’s experiences (or each shard’s cleaned rows and rejected records) go back through the queue and the coordinator writes them.',
    'SIGINT/SIGTERM: finish the jobs in progress, then exit 0. A killed worker’s jobs are redone by others after the visibility timeout.',
  ],
  examples: [
    'winnow worker --queue redis://10.0.0.5:6379 --concurrency 8',
    'winnow worker --queue redis://127.0.0.1:6379 --role explorer --visibility-timeout 10000',
    'winnow worker --queue redis://10.0.0.5:6379 --role pipeline --concurrency 1',
  ],
} as const satisfies CommandSpec;
