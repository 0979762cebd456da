import { appendFileSync, createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Registry } from '../core/registry.ts';
import type { JsonValue, Task } from '../core/task.ts';
import { writeJsonl } from '../io/jsonl-writer.ts';
import { writeParquet } from '../io/parquet-writer.ts';
import { Hooks } from '../lifecycle/hooks.ts';
import {
  type RunTaskPipelineOptions,
  runTaskPipeline,
  type TaskPipelineEvents,
  type TaskPipelineReport,
} from '../lifecycle/pipeline/task-pipeline.ts';
import {
  type TaskPipelineConfig,
  taskPipelineConfigSchema,
} from '../lifecycle/pipeline/task-pipeline-config.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { recipeRowIds } from './recipe-row-ids.ts';
import { type TranslatedRecipe, translateRecipe } from './translate-recipe.ts';

export interface RecipeRunOptions
  extends Pick<RunTaskPipelineOptions, 'dbDir' | 'seed' | 'strict' | 'onWarn' | 'onStart' | 'onProgress'> {
  registry: Registry<OperatorDefinition<Task, unknown>>;
  /** Data-Juicer resolves dataset_path and export_path against the working folder. */
  cwd: string;
  /** Replace export_path when it exists (refused otherwise, before anything is written). */
  overwriteExport: boolean;
}

export interface RecipeRunReport {
  report: TaskPipelineReport;
  exportFile: string;
  exportFormat: TranslatedRecipe['exportFormat'];
  exported: number;
  notes: string[];
}

/** Translate and validate a recipe, without running it: the Winnow config and the translation. */
export function prepareRecipe(
  file: string,
  raw: unknown,
  o: { registry: Registry<OperatorDefinition<Task, unknown>>; cwd: string; pathsRelativeTo?: string },
): { translated: TranslatedRecipe; config: TaskPipelineConfig } {
  const abs = resolve(file);
  const translated = translateRecipe(raw, {
    file: abs,
    cwd: o.cwd,
    operators: o.registry.names(),
    ...(o.pathsRelativeTo ? { pathsRelativeTo: o.pathsRelativeTo } : {}),
  });
  let config: TaskPipelineConfig;
  try {
    config = parseConfig(taskPipelineConfigSchema(o.registry), translated.pipeline, { file: abs });
  } catch (err) {
    // A translation the Winnow schema refuses is our bug or a table line out of date: say which op.
    if (!(err instanceof ConfigError)) throw err;
    const m = /^operators\[(\d+)\]/.exec(err.path);
    const step = m ? translated.steps[Number(m[1])] : undefined;
    throw new ConfigError({
      path: step ? `process[${step.position}].${step.dataJuicer}` : err.path,
      file: abs,
      message: `the translated Winnow pipeline is invalid: ${err.message}`,
      hint: 'the translation table (src/recipes/data-juicer-ops.ts) does not match the operator',
    });
  }
  return { translated, config };
}

/**
 * Run a Data-Juicer recipe as a Winnow task pipeline: validate everything (recipe, translation,
 * export path), then run, land the tasks, and write the kept rows to export_path with their
 * original fields (the text key holding the cleaned text), as Data-Juicer exports them.
 */
export async function runRecipe(file: string, raw: unknown, o: RecipeRunOptions): Promise<RecipeRunReport> {
  const abs = resolve(file);
  const { translated, config } = prepareRecipe(abs, raw, o);
  checkExportPath(translated.exportFile, o.overwriteExport, abs);

  // The rows the graph kept, in order, spooled to a private file as they come (memory stays flat);
  // a repeated id is refused at write (first wins), so here too.
  const spoolDir = mkdtempSync(join(tmpdir(), 'winnow-recipe-'));
  const spool = join(spoolDir, 'kept.jsonl');
  const keptIds = new Set<string>();
  const rowIds = recipeRowIds();
  const hooks = new Hooks<TaskPipelineEvents>()
    .on('afterTaskOps', (p) => ({ rows: rowIds(p.rows) }), 'recipe_row_ids')
    .on(
      'afterTaskOps',
      (p) => {
        let text = '';
        for (const t of p.rows) {
          if (keptIds.has(t.id)) continue;
          keptIds.add(t.id);
          text += `${JSON.stringify(exportRow(t, translated.textKey))}\n`;
        }
        if (text !== '') appendFileSync(spool, text);
      },
      'recipe_export',
    );
  try {
    const report = await runTaskPipeline(config, {
      baseDir: o.cwd,
      configFile: abs,
      registry: o.registry,
      hooks,
      ...(o.dbDir !== undefined ? { dbDir: o.dbDir } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.strict !== undefined ? { strict: o.strict } : {}),
      ...(o.onWarn ? { onWarn: o.onWarn } : {}),
      ...(o.onStart ? { onStart: o.onStart } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    const write = translated.exportFormat === 'parquet' ? writeParquet : writeJsonl;
    const written = await write(translated.exportFile, spooledBatches(spool, keptIds.size));
    return {
      report,
      exportFile: written.file,
      exportFormat: translated.exportFormat,
      exported: written.rows,
      notes: translated.notes,
    };
  } finally {
    rmSync(spoolDir, { recursive: true, force: true });
  }
}

/** The spooled rows back, in batches of 8,192. */
async function* spooledBatches(file: string, count: number): AsyncGenerator<object[]> {
  if (count === 0) return;
  let batch: object[] = [];
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(JSON.parse(line) as object);
    if (batch.length === 8192) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** A kept task as Data-Juicer writes the row: the text key (cleaned text) first, then the other fields as read. */
export function exportRow(task: Task, textKey: string): Record<string, JsonValue> {
  return { [textKey]: task.prompt ?? '', ...task.meta };
}

function checkExportPath(path: string, overwrite: boolean, file: string): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory())
    throw new ConfigError({ path: 'export_path', file, message: `${path} is a folder, expected a file` });
  if (!overwrite)
    throw new ConfigError({
      path: 'export_path',
      file,
      message: `${path} already exists`,
      hint: 'pass --overwrite-export to replace it, or change export_path',
    });
}
