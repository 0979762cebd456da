import { readdirSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { readYamlFile } from '../core/yaml-file.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { isDataJuicerRecipe } from '../recipes/data-juicer-recipe.ts';
import { RecipeRefusedError } from '../recipes/recipe-problems.ts';
import { prepareRecipe } from '../recipes/run-recipe.ts';

/** What `winnow convert --all DIR` found for one file. */
export interface RecipeCheck {
  file: string;
  status: 'converts' | 'refused' | 'not a recipe';
  /** The Winnow operators it runs as (converts). */
  operators?: string[];
  /** Every blocker (refused), or why the file is not a recipe. */
  reasons: string[];
}

/** Every .yaml/.yml file under `dir` (sorted, recursively). */
function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (['.yaml', '.yml'].includes(extname(name).toLowerCase())) out.push(path);
  }
  return out;
}

/** Validate every recipe under `dir` as `winnow run` would (nothing is run or written). */
export function checkRecipes(dir: string, cwd: string): RecipeCheck[] {
  const registry = taskOperatorRegistry();
  return yamlFiles(resolve(dir)).map((file) => {
    let raw: unknown;
    try {
      raw = readYamlFile(file);
    } catch (err) {
      return { file, status: 'not a recipe', reasons: [errorMessage(err)] };
    }
    if (!isDataJuicerRecipe(raw))
      return { file, status: 'not a recipe', reasons: ['no top-level process: list'] };
    try {
      const { translated } = prepareRecipe(file, raw, { registry, cwd });
      return { file, status: 'converts', operators: translated.steps.map((s) => s.winnow), reasons: [] };
    } catch (err) {
      if (err instanceof RecipeRefusedError)
        return { file, status: 'refused', reasons: err.problems.map((p) => `${p.path}: ${p.message}`) };
      if (err instanceof ConfigError) return { file, status: 'refused', reasons: [oneLine(err, file)] };
      throw err;
    }
  });
}

const oneLine = (err: ConfigError, file: string) =>
  err.message.startsWith(`${file}: `) ? err.message.slice(file.length + 2) : err.message;

/** The table `winnow convert --all` prints: one line per file, then each blocker indented under it. */
export function formatRecipeChecks(checks: readonly RecipeCheck[], dir: string): string {
  const name = (f: string) => relative(resolve(dir), f);
  const width = Math.max(6, ...checks.map((c) => name(c.file).length));
  const lines = [`${'recipe'.padEnd(width)}  result`];
  for (const c of checks) {
    const what = c.status === 'converts' ? `converts (${c.operators?.length ?? 0} operators)` : c.status;
    lines.push(`${name(c.file).padEnd(width)}  ${what}`);
    for (const r of c.reasons) lines.push(`${' '.repeat(width)}    - ${r}`);
  }
  const recipes = checks.filter((c) => c.status !== 'not a recipe');
  const ok = recipes.filter((c) => c.status === 'converts').length;
  lines.push('', `${ok} of ${recipes.length} recipe(s) convert; ${recipes.length - ok} refused`);
  return `${lines.join('\n')}\n`;
}
