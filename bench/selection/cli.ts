import { writeFileSync } from 'node:fs';
import { parseCommand } from '../../src/cli/command-spec.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { SELECTION_BENCH_SPEC } from '../bench-specs.ts';
import { formatSelectionTable } from './format.ts';
import { selectionHtml } from './html.ts';
import { runSelectionBench } from './runner.ts';
import { runSelectionSweep } from './sweep.ts';
import { formatSweep } from './sweep-format.ts';

/**
 * `winnow bench selection [--scenario S|all] [--seeds K] [--steps T] [--selectors a,b] [--json]`.
 * Prints one table per scenario (or JSON); exit code 0.
 */
export async function selectionBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(SELECTION_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const progress = values.quiet ? {} : { onProgress: (m: string) => process.stderr.write(`${m}\n`) };
  if (values.sweep !== undefined) {
    for (const flag of ['scenario', 'html', 'overhead-tasks'])
      if (parsed.given.has(flag))
        throw new ConfigError({
          path: flag,
          message: `--${flag} does not apply to --sweep`,
          hint: 'the sweep varies the default scenario and prints tables or --json',
        });
    const poolSizes = values['pool-sizes']?.map((x) => Number(x));
    if (poolSizes?.some((n) => !Number.isInteger(n) || n < 100))
      throw new ConfigError({
        path: 'pool-sizes',
        message: 'expected integers ≥ 100',
        hint: 'e.g. --pool-sizes 1000,10000',
      });
    const points = values.points?.map((x) => Number(x));
    if (points && (values.sweep === 'all' || points.some((n) => !Number.isInteger(n) || n < 1)))
      throw new ConfigError({
        path: 'points',
        message:
          values.sweep === 'all' ? '--points needs one factor, not --sweep all' : 'expected integers ≥ 1',
        hint: 'e.g. --sweep easy-hard --points 4,5,6',
      });
    const sweep = await runSelectionSweep({
      factor: values.sweep,
      seeds: values.seeds,
      // The sweep reports on the report seeds (6–10) unless told otherwise.
      firstSeed: parsed.given.has('first-seed') ? values['first-seed'] : 6,
      ...(values.selectors !== undefined ? { selectors: values.selectors } : {}),
      ...(values.steps !== undefined ? { steps: values.steps } : {}),
      ...(poolSizes ? { poolSizes } : {}),
      ...(points ? { points } : {}),
      ...progress,
    });
    process.stdout.write(`${values.json ? JSON.stringify(sweep, null, 2) : formatSweep(sweep)}\n`);
    return 0;
  }
  const result = await runSelectionBench({
    scenario: values.scenario,
    seeds: values.seeds,
    ...(values.steps !== undefined ? { steps: values.steps } : {}),
    ...(values.selectors !== undefined ? { selectors: values.selectors } : {}),
    firstSeed: values['first-seed'],
    overheadTasks: values['overhead-tasks'],
    json: values.json,
    ...progress,
  });
  if (values.html) writeFileSync(values.html, selectionHtml(result));
  process.stdout.write(`${values.json ? JSON.stringify(result, null, 2) : formatSelectionTable(result)}\n`);
  return 0;
}
