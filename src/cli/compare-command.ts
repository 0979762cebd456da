import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { resolveDbDir, resolveRunsDir } from '../core/places.ts';
import { UsageError } from '../core/usage-error.ts';
import { type RunView, readRuns } from '../inspect/run-views.ts';
import { renderComparisonHtml } from '../lifecycle/report/compare/compare-html.ts';
import { loadRunComparison } from '../lifecycle/report/compare/run-comparison.ts';
import { resolveRunRefs } from '../lifecycle/report/compare/run-refs.ts';
import { parseCommand } from './command-spec.ts';
import { COMPARE_SPEC } from './specs/compare.ts';

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
