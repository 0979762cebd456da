// `winnow runs`'s definition (options, help, docs/cli.md), apart from what runs it (runs-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION } from '../command-spec.ts';

export const RUNS_SPEC = {
  name: 'runs',
  args: '',
  summary: 'List the runs recorded in a database (task pipelines and RFT runs). Reads only.',
  options: {
    db: DB_OPTION,
    name: { type: 'string', value: 'NAME', description: 'only runs of this pipeline name' },
    json: { type: 'boolean', description: 'print a JSON array instead of a table' },
  },
  notes: [
    "A 'running' record whose process is gone (same host, pid not alive) shows as 'interrupted (process gone)';",
    'winnow run --resume continues it, winnow gc RUN --yes removes it.',
  ],
  examples: ['winnow runs', 'winnow runs --db .winnow/db --name arithmetic-bots --json'],
} as const satisfies CommandSpec;
