import { dirname, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../core/atomic-file.ts';
import { ConfigError } from '../core/errors.ts';
import { UsageError } from '../core/usage-error.ts';
import { readYamlFile } from '../core/yaml-file.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { isDataJuicerRecipe } from '../recipes/data-juicer-recipe.ts';
import { prepareRecipe } from '../recipes/run-recipe.ts';
import type { TranslatedRecipe } from '../recipes/translate-recipe.ts';
import { parseCommand } from './command-spec.ts';
import { checkRecipes, formatRecipeChecks } from './convert-all.ts';
import { CONVERT_SPEC } from './specs/convert.ts';

export async function convertCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(CONVERT_SPEC, argv);
  if (!parsed) return 0;
  const file = parsed.positionals[0];
  if (parsed.values.all === true) {
    if (!file) throw new UsageError('winnow convert --all needs a folder: winnow convert --all DIR');
    if (parsed.values.out !== undefined)
      throw new UsageError('--out writes one pipeline; it does not go with --all');
    const checks = checkRecipes(file, process.cwd());
    if (parsed.values.json === true) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
    else process.stdout.write(formatRecipeChecks(checks, file));
    return checks.some((c) => c.status === 'refused') ? 1 : 0;
  }
  if (parsed.values.json === true) throw new UsageError('--json goes with --all');
  if (!file)
    throw new UsageError('winnow convert needs the recipe: winnow convert RECIPE (winnow convert --help)');
  const out = parsed.values.out !== undefined ? resolve(parsed.values.out) : undefined;
  const raw = readYamlFile(file);
  if (!isDataJuicerRecipe(raw))
    throw new ConfigError({
      path: 'process',
      file: resolve(file),
      message: 'not a Data-Juicer recipe',
      hint: 'a recipe has a top-level process: list of op_name: {args} and no kind, input or operators',
    });
  const { translated } = prepareRecipe(file, raw, {
    registry: taskOperatorRegistry(),
    cwd: process.cwd(),
    ...(out ? { pathsRelativeTo: dirname(out) } : {}),
  });
  const text = pipelineYaml(resolve(file), translated, out);
  if (out !== undefined) {
    await writeFileAtomic(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
  return 0;
}

/** The pipeline as YAML, headed by comments: where it came from, each op's translation, what was ignored. */
export function pipelineYaml(recipeFile: string, t: TranslatedRecipe, out: string | undefined): string {
  const exportPath = out ? relative(dirname(out), t.exportFile) : t.exportFile;
  const header = [
    `# Converted by \`winnow convert\` from the Data-Juicer recipe ${recipeFile}.`,
    `# The recipe exported the kept rows to ${exportPath}; after \`winnow run\`, the same rows are`,
    `# in the task table: \`winnow export --out FILE\` writes them (the text is each row's prompt, the`,
    '# other fields are under meta).',
    '# Operators (Data-Juicer → Winnow):',
    ...t.steps.map((s) => `#   process[${s.position}] ${s.dataJuicer} → ${s.winnow}`),
    ...t.notes.map((n) => `# ${n}`),
  ];
  return `${header.join('\n')}\n${stringify(t.pipeline, { lineWidth: 0 })}`;
}
