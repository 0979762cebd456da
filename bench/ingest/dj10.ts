// `bench ingest --pipeline dj10`: the Data-Juicer recipe bench/ingest/dj10-cjk.yaml, translated
// as `winnow run`/`winnow convert` translate it (src/recipes/translate-recipe.ts), so the bench runs
// the very operators and params a user of the recipe gets.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { translateRecipe } from '../../src/recipes/translate-recipe.ts';

export const DJ10_RECIPE = join(import.meta.dirname, 'dj10-cjk.yaml');

/** The recipe's Winnow operator chain, its dataset set to `file` (which must exist). */
export function dj10Operators(file: string): readonly unknown[] {
  const raw = parse(readFileSync(DJ10_RECIPE, 'utf8')) as Record<string, unknown>;
  const recipe = { ...raw, dataset_path: file, export_path: join(dirname(file), 'dj10-export.jsonl') };
  const translated = translateRecipe(recipe, {
    file: DJ10_RECIPE,
    cwd: dirname(file),
    operators: taskOperatorRegistry().names(),
  });
  return translated.pipeline.operators as readonly unknown[];
}
