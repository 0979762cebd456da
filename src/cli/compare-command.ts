import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { resolveDbDir, resolveRunsDir } from '../core/places.ts';
import { renderComparisonHtml } from '../lifecycle/compare/compare-html.ts';
import { loadRunComparison } from '../lifecycle/compare/run-comparison.ts';
import { resolveRunRefs } from '../lifecycle/compare/run-refs.ts';
import { UsageError } from './args.ts';
import { type CommandSpec, DB_OPTION, parseCommand } from './command-spec.ts';
import { type RunView, readRuns } from './runs-command.ts';

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

export async function compareCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(COMPARE_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length < 2)
    throw new UsageError(
      `compare needs two or more runs, got ${positionals.length === 0 ? 'none' : `only '${positionals[0]}'`} (winnow runs lists them)`,
    );
  const runsDir = resolveRunsDir({ flag: values.runs });
  const dbDir = resolveDbDir({ flag: values.db });
  if (values.db !== undefined && !existsSync(dbDir))
    throw new UsageError(`no database folder at ${dbDir} (pass --db DIR; winnow run creates it)`);
  // The database is optional: folders alone make a comparison; it adds statuses and recorded folders.
  const views: RunView[] = existsSync(dbDir) ? await readRuns(dbDir) : [];
  const dirs = resolveRunRefs(positionals, { runsDir, recorded: views });
  const comparison = await loadRunComparison(dirs, {
    statuses: views.map((v) => ({ runId: v.runId, status: v.status, statusNote: v.statusNote })),
  });
  const out = resolve(values.out);
  writeFileAtomicSync(out, renderComparisonHtml(comparison));
  const differ = comparison.configDiff.length;
  process.stdout.write(
    `wrote ${out}: ${comparison.runs.length} runs, ${comparison.metrics.length} metrics over ${comparison.steps.length} steps, ${differ} config key(s) differ\n`,
  );
  return 0;
}
