// `winnow gc`'s definition (options, help, docs/cli.md), apart from what runs it (gc-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION } from '../command-spec.ts';

export const GC_SPEC = {
  name: 'gc',
  args: 'RUN [RUN…]',
  summary:
    'Delete runs you name: their buffer tables, rejected rows, selector states, run folder and record ' +
    '(and, for a run started with --queue, its rollout jobs in Redis, best effort). ' +
    'Without --yes it only prints what it would delete.',
  options: {
    db: DB_OPTION,
    failed: {
      type: 'boolean',
      description: 'also select every failed or interrupted run (each one is listed)',
    },
    'dry-run': {
      type: 'boolean',
      description: 'only print what would be deleted (the default without --yes)',
    },
    yes: { type: 'boolean', description: 'really delete' },
  },
  notes: ['Every name is checked before anything is deleted; a run whose process is still alive is refused.'],
  examples: [
    'winnow gc arithmetic-bots-2',
    'winnow gc arithmetic-bots-2 arithmetic-bots-3 --yes',
    'winnow gc --failed --yes',
  ],
} as const satisfies CommandSpec;
