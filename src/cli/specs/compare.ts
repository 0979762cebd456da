// `winnow compare`'s definition (options, help, docs/cli.md), apart from what runs it (compare-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION } from '../command-spec.ts';

export const COMPARE_SPEC = {
  name: 'compare',
  args: 'RUN RUN…',
  summary:
    'Write one static HTML file comparing runs: any metric overlaid over steps, the values, and the configs diffed. ' +
    'Works offline (no server, no network); attach it to a mail or an issue.',
  options: {
    out: {
      type: 'string',
      value: 'FILE',
      description: 'the HTML file to write',
      default: 'comparison.html',
    },
    runs: {
      type: 'string',
      value: 'DIR',
      description:
        'folder holding one folder per run (default: .winnow/runs in the project folder, or $WINNOW_RUNS_DIR)',
    },
    db: {
      ...DB_OPTION,
      description: `${DB_OPTION.description}; read for run statuses and folders, when it exists`,
    },
  },
  notes: [
    'RUN is a run id (its folder in the runs folder, or the one the database recorded) or a path to a run folder.',
    'The page embeds the comparison as JSON (<script id="winnow-comparison">) for scripts.',
  ],
  examples: [
    'winnow compare arithmetic-bots-1 arithmetic-random-1',
    'winnow compare .winnow/runs/a .winnow/runs/b .winnow/runs/c --out bots-vs-random.html',
  ],
} as const satisfies CommandSpec;
