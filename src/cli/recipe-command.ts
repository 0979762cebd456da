import { resolve } from 'node:path';
import { UsageError } from '../core/usage-error.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { runRecipe } from '../recipes/run-recipe.ts';
import type { CommandSpec } from './command-spec.ts';
import type { Progress } from './progress.ts';
import { formatTaskReport } from './run-report.ts';

export interface RecipeCommandValues {
  db: string | undefined;
  seed: number | undefined;
  strict: boolean;
  json: boolean;
  quiet: boolean;
  overwriteExport: boolean;
}

/** A recipe run is a task pipeline run plus an export: flags for kind tasks or recipe apply. */
function refuseForRecipe(spec: CommandSpec, given: ReadonlySet<string>, file: string): void {
  for (const name of given) {
    const only = spec.options[name]?.only;
    if (only !== undefined && only !== 'tasks' && only !== 'recipe')
      throw new UsageError(`--${name} applies only to kind: ${only}; ${file} is a Data-Juicer recipe`);
  }
}

/** `winnow run recipe.yaml` for a Data-Juicer recipe: run it, print the task report and the export. */
export async function runRecipeCommand(
  spec: CommandSpec,
  file: string,
  raw: unknown,
  values: RecipeCommandValues,
  given: ReadonlySet<string>,
  progress: Progress,
): Promise<number> {
  refuseForRecipe(spec, given, file);
  const talk = !values.json && !values.quiet;
  const warnings: string[] = [];
  const result = await runRecipe(file, raw, {
    registry: taskOperatorRegistry(),
    cwd: process.cwd(),
    overwriteExport: values.overwriteExport,
    strict: values.strict,
    ...(values.db ? { dbDir: values.db } : {}),
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
    onWarn: (m) => warnings.push(m),
    onStart: (w) => {
      if (talk)
        process.stderr.write(`Data-Juicer recipe ${resolve(file)}\nrun ${w.runId}\ndatabase: ${w.dbDir}\n`);
    },
    onProgress: (p) => {
      progress.update(
        `${p.rowsRead.toLocaleString('en-US')} rows read, ${p.tasksOut.toLocaleString('en-US')} kept, ${p.rejected.toLocaleString('en-US')} dropped`,
      );
    },
  }).finally(() => progress.done());
  const exportLine = `export: ${result.exported.toLocaleString('en-US')} row(s) written to ${result.exportFile} (${result.exportFormat})`;
  if (values.json) process.stdout.write(`${JSON.stringify({ ...result }, null, 2)}\n`);
  else if (!values.quiet)
    process.stdout.write(`${[formatTaskReport(result.report), exportLine, ...result.notes].join('\n')}\n`);
  return 0;
}
