import { parseArgs } from 'node:util';
import { formatSelectionTable } from './format.ts';
import { runSelectionBench } from './runner.ts';

/**
 * `winnow bench selection [--scenario S|all] [--seeds K] [--steps T] [--selectors a,b] [--json]`.
 * Prints one table per scenario (or JSON); exit code 0.
 */
export async function selectionBenchMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string', default: 'default' },
      seeds: { type: 'string', default: '5' },
      steps: { type: 'string' },
      selectors: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
  });
  const result = await runSelectionBench({
    scenario: values.scenario,
    seeds: Number(values.seeds),
    ...(values.steps !== undefined ? { steps: Number(values.steps) } : {}),
    ...(values.selectors !== undefined
      ? { selectors: values.selectors.split(',').map((s) => s.trim()) }
      : {}),
    json: values.json,
    ...(values.quiet ? {} : { onProgress: (m: string) => process.stderr.write(`${m}\n`) }),
  });
  process.stdout.write(`${values.json ? JSON.stringify(result, null, 2) : formatSelectionTable(result)}\n`);
  return 0;
}
