import { writeFileSync } from 'node:fs';
import { parseCommand } from '../../src/cli/command-spec.ts';
import { SELECTION_BENCH_SPEC } from '../bench-specs.ts';
import { formatSelectionTable } from './format.ts';
import { selectionHtml } from './html.ts';
import { runSelectionBench } from './runner.ts';

/**
 * `winnow bench selection [--scenario S|all] [--seeds K] [--steps T] [--selectors a,b] [--json]`.
 * Prints one table per scenario (or JSON); exit code 0.
 */
export async function selectionBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(SELECTION_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const result = await runSelectionBench({
    scenario: values.scenario,
    seeds: values.seeds,
    ...(values.steps !== undefined ? { steps: values.steps } : {}),
    ...(values.selectors !== undefined ? { selectors: values.selectors } : {}),
    firstSeed: values['first-seed'],
    overheadTasks: values['overhead-tasks'],
    json: values.json,
    ...(values.quiet ? {} : { onProgress: (m: string) => process.stderr.write(`${m}\n`) }),
  });
  if (values.html) writeFileSync(values.html, selectionHtml(result));
  process.stdout.write(`${values.json ? JSON.stringify(result, null, 2) : formatSelectionTable(result)}\n`);
  return 0;
}
