import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, extname, relative, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { closestNames, editDistance } from '../core/suggest.ts';
import {
  DATA_JUICER_OPS,
  DJ_RUNTIME_PARAMS,
  type DjArgs,
  UnsupportedParam,
  unsupportedFamily,
} from './data-juicer-ops.ts';
import { type DataJuicerRecipe, DataJuicerRecipeSchema, textKeysOf } from './data-juicer-recipe.ts';
import { parseRecipePart, RecipeProblems } from './recipe-problems.ts';

export type ExportFormat = 'jsonl' | 'parquet';

/** One `process:` entry and the Winnow operator it became. */
export interface TranslatedStep {
  position: number;
  dataJuicer: string;
  winnow: string;
  /** The step's name in the Winnow pipeline (the Data-Juicer op, `_2`… when it repeats). */
  stepName: string;
  params: Record<string, unknown>;
  /** What the run summary says of this step (which model scores). */
  note?: string;
}

export interface TranslatedRecipe {
  /** A Winnow task pipeline config (plain data, as YAML would give it); not yet validated. */
  pipeline: Record<string, unknown>;
  steps: TranslatedStep[];
  /** The column the operators read (`text_keys[0]`). */
  textKey: string;
  datasetFiles: string[];
  exportFile: string;
  exportFormat: ExportFormat;
  /** What np became (`workers`), and keys accepted but not acted on. */
  notes: string[];
}

export interface TranslateOptions {
  /** The recipe file (errors name it). */
  file: string;
  /** Data-Juicer resolves dataset_path and export_path against the working folder. */
  cwd: string;
  /** Names of the Winnow task operators registered now. */
  operators: readonly string[];
  /** Write input paths relative to this folder (the converted YAML's); absolute when absent. */
  pathsRelativeTo?: string;
  /** The cores `np` is capped at (default: os.availableParallelism()). */
  cores?: number;
}

const DATASET_EXTS = ['.jsonl', '.json', '.parquet', '.csv', '.arrow'];

/** Turn a Data-Juicer recipe into a Winnow task pipeline, refusing what Winnow cannot honour (exit 2). */
export function translateRecipe(raw: unknown, o: TranslateOptions): TranslatedRecipe {
  const file = resolve(o.file);
  const fail = (path: string, message: string, hint?: string): never => {
    throw new ConfigError({ path, file, message, ...(hint ? { hint } : {}) });
  };
  // Every blocker is collected, so one refusal names them all (recipe-problems.ts).
  const problems = new RecipeProblems(file);
  const recipe = problems.attempt(() => parseRecipePart(DataJuicerRecipeSchema, raw, { file }));
  const rawProcess = (raw as { process?: unknown }).process;
  const items: unknown[] = recipe?.process ?? (Array.isArray(rawProcess) ? rawProcess : []);
  const textKey = recipe ? textKeysOf(recipe)[0]! : guessTextKey(raw);
  const datasetFiles = recipe ? (problems.attempt(() => datasetFilesOf(recipe, o.cwd, fail)) ?? []) : [];
  const exportFile = recipe ? resolve(o.cwd, recipe.export_path) : '';
  const exportFormat = recipe ? problems.attempt(() => exportFormatOf(exportFile, fail)) : undefined;
  const steps: TranslatedStep[] = [];
  items.forEach((item, i) => {
    const step = problems.attempt(() =>
      translateStep(item as string | Record<string, unknown>, i, items.length, textKey, o, fail),
    );
    if (step !== undefined) steps.push(step);
  });
  for (const s of steps) if (s.winnow === 'suffix_filter') fillSuffix(s, datasetFiles, problems, file);
  problems.throwIfAny();
  if (!recipe || exportFormat === undefined) throw new Error('unreachable: a recipe without problems parsed');
  // Each step is named after its Data-Juicer op, so the report and the rejected rows name it too.
  const seen = new Map<string, number>();
  for (const s of steps) {
    const n = (seen.get(s.dataJuicer) ?? 0) + 1;
    seen.set(s.dataJuicer, n);
    s.stepName = n === 1 ? s.dataJuicer : `${s.dataJuicer}_${n}`;
  }
  const notes: string[] = [];
  const workers =
    recipe.np === undefined ? undefined : workersForNp(recipe.np, o.cores ?? availableParallelism());
  if (recipe.np !== undefined && workers !== undefined)
    notes.push(npNote(recipe.np, workers, o.cores ?? availableParallelism()));
  const ignored = Object.keys(raw as object).filter(
    (k) => !['project_name', 'dataset_path', 'export_path', 'text_keys', 'np', 'process'].includes(k),
  );
  if (ignored.length > 0) notes.push(`ignored (no effect on the kept rows): ${ignored.join(', ')}`);
  for (const s of steps) if (s.note !== undefined) notes.push(s.note);
  const name = recipe.project_name ?? basename(file, extname(file));
  const inputPaths = datasetFiles.map((f) => (o.pathsRelativeTo ? relative(o.pathsRelativeTo, f) || '.' : f));
  return {
    pipeline: {
      name,
      description: `Translated from the Data-Juicer recipe ${basename(file)}`,
      ...(workers !== undefined ? { workers } : {}),
      input: { path: inputPaths.length === 1 ? inputPaths[0] : inputPaths },
      mapping: { taskset: name, prompt: { column: textKey, allowEmpty: true }, meta: '*' },
      operators: steps.map((s) => ({
        op: s.winnow,
        name: s.stepName,
        ...(Object.keys(s.params).length > 0 ? { params: s.params } : {}),
      })),
    },
    steps,
    textKey,
    datasetFiles,
    exportFile,
    exportFormat,
    notes,
  };
}

type Fail = (path: string, message: string, hint?: string) => never;

/**
 * Data-Juicer's np (processes) is Winnow's `workers` (threads for the row-wise operators), capped
 * at the cores available: threads beyond the cores only add memory and switching (np: 50 on two
 * cores took 9x the time and 7x the memory of 2, for the same rows).
 */
export function workersForNp(np: number, cores: number): number {
  return Math.max(1, Math.min(np, cores, 64));
}

function npNote(np: number, workers: number, cores: number): string {
  const capped = workers < np ? `; capped: ${cores} core(s) available` : '';
  return `np: ${np} runs the row-wise operators on ${workers} worker thread(s) (workers: ${workers}${capped})`;
}

/** text_keys of a recipe whose top level did not validate (so its steps can still be checked). */
function guessTextKey(raw: unknown): string {
  const k = (raw as { text_keys?: unknown }).text_keys;
  if (typeof k === 'string') return k;
  if (Array.isArray(k) && typeof k[0] === 'string') return k[0];
  return 'text';
}

function datasetFilesOf(r: DataJuicerRecipe, cwd: string, fail: Fail): string[] {
  const path = resolve(cwd, r.dataset_path);
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return fail(
      'dataset_path',
      `no such file or folder: ${path}`,
      'Data-Juicer paths resolve against the working folder',
    );
  }
  if (!isDir) return [path];
  const files = readdirSync(path)
    .filter((f) => DATASET_EXTS.includes(extname(f).toLowerCase()))
    .sort()
    .map((f) => resolve(path, f));
  if (files.length === 0) fail('dataset_path', `the folder ${path} holds no ${DATASET_EXTS.join(', ')} file`);
  return files;
}

function exportFormatOf(file: string, fail: Fail): ExportFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.json') return 'jsonl';
  if (ext === '.parquet') return 'parquet';
  return fail(
    'export_path',
    `cannot write '${ext || basename(file)}'`,
    'end it in .jsonl, .json (JSON lines) or .parquet',
  );
}

function translateStep(
  item: string | Record<string, unknown>,
  i: number,
  total: number,
  textKey: string,
  o: TranslateOptions,
  fail: Fail,
): TranslatedStep {
  const at = `process[${i}]`;
  const where = `operator ${i + 1} of ${total}`;
  if (item === null || (typeof item !== 'string' && (typeof item !== 'object' || Array.isArray(item))))
    fail(at, `${where} must name one operator (op_name: {args})`);
  if (typeof item !== 'string' && Object.keys(item).length !== 1)
    fail(at, `${where} must name one operator (op_name: {args}), got ${Object.keys(item).length} keys`);
  const name = typeof item === 'string' ? item : Object.keys(item)[0]!;
  const rawArgs = typeof item === 'string' ? null : item[name];
  if (rawArgs !== null && rawArgs !== undefined && (typeof rawArgs !== 'object' || Array.isArray(rawArgs)))
    fail(`${at}.${name}`, `${where}: the arguments must be a mapping of parameter: value`);
  const entry = DATA_JUICER_OPS[name];
  if (!entry) {
    const why = unsupportedFamily(name) ?? 'not in the translation table (docs/recipes.md)';
    fail(
      `${at}.${name}`,
      `${where}: Data-Juicer operator '${name}' is not supported (${why})`,
      closestHint(name, o.operators),
    );
  }
  const def = entry!;
  const schema = def.params.extend(DJ_RUNTIME_PARAMS.shape).strict();
  const args = parseRecipePart(schema, rawArgs ?? {}, {
    path: `${at}.${name}`,
    file: resolve(o.file),
  }) as DjArgs;
  const winnow = def.winnowFor?.(args) ?? def.winnow;
  if (!o.operators.includes(winnow))
    fail(
      `${at}.${name}`,
      `${where}: '${name}' runs as Winnow's '${winnow}', which this build does not register`,
    );
  if (args.text_key !== undefined && args.text_key !== textKey)
    fail(
      `${at}.${name}.text_key`,
      `'${String(args.text_key)}' is not supported: every operator reads text_keys[0] ('${textKey}')`,
    );
  try {
    const params = def.translate(args);
    const local = def.localModel?.(params, o.cwd);
    if (local !== undefined && 'problem' in local)
      fail(`${at}.${name}`, `${where} '${name}': ${local.problem}`, local.hint);
    if (local !== undefined && 'note' in local)
      return {
        position: i,
        dataJuicer: name,
        winnow,
        stepName: name,
        params: local.params,
        note: local.note,
      };
    return { position: i, dataJuicer: name, winnow, stepName: name, params };
  } catch (err) {
    if (err instanceof UnsupportedParam)
      return fail(
        `${at}.${name}.${err.param}`,
        `${where} '${name}': ${JSON.stringify(args[err.param])} is not supported: ${err.why}`,
      );
    throw err;
  }
}

/** "closest Winnow operator: …" — by name among Winnow's operators and the Data-Juicer names we translate. */
function closestHint(name: string, operators: readonly string[]): string {
  const translated = Object.entries(DATA_JUICER_OPS).filter(([, d]) => operators.includes(d.winnow));
  const candidates = [...operators, ...translated.map(([dj]) => dj)];
  const near =
    closestNames(name, candidates, 1)[0] ??
    [...candidates].sort((a, b) => editDistance(name, a) - editDistance(name, b) || a.localeCompare(b))[0];
  if (near === undefined) return 'no Winnow operator is registered';
  const viaDj = DATA_JUICER_OPS[near];
  return viaDj
    ? `closest Winnow operator: ${viaDj.winnow} (Data-Juicer's ${near})`
    : `closest Winnow operator: ${near}`;
}

/**
 * Data-Juicer gives a row without a __dj__suffix__ field its input file's suffix; so does the
 * converted suffix_filter, when every input file has the same one.
 */
function fillSuffix(
  step: TranslatedStep,
  files: readonly string[],
  problems: RecipeProblems,
  file: string,
): void {
  const exts = [...new Set(files.map((f) => extname(f).toLowerCase()))];
  if (exts.length === 1) step.params = { ...step.params, missing: exts[0] };
  else if (exts.length > 1)
    problems.attempt(() => {
      throw new ConfigError({
        path: `process[${step.position}].suffix_filter`,
        file,
        message: `the input files have ${exts.length} suffixes (${exts.join(', ')}), so rows without __dj__suffix__ have no single one`,
        hint: 'point dataset_path at files of one kind, or give each row a __dj__suffix__ field',
      });
    });
}
