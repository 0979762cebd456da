import { z } from 'zod';
import type { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import { FieldMappingSchema } from '../../io/mapping.ts';
import { DATASET_FORMATS, ReadOptionsSchema } from '../../io/read-options.ts';
import { operatorListSchema } from '../../operators/graph-spec.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import { taskOperatorRegistry } from '../../operators/registries.ts';

/**
 * Tasks per LanceDB commit by default. Measured with the full 5-filter + exact_dedup chain: 25,000
 * gave ~80 MB less peak RSS than 50,000 at 1M rows but the same at 10M rows (1,124 vs 1,118 MB), at
 * the same CPU time, so the larger commits (half the table versions) stay the default.
 */
export const DEFAULT_COMMIT_ROWS = 50_000;

export const INPUT_FORMATS = DATASET_FORMATS;

/** `input:`: the file(s) to read plus every reader option of docs/io.md, so YAML can set any of them. */
export const TaskInputSchema = ReadOptionsSchema.extend({
  path: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('File(s) relative to the config file.'),
});

/**
 * `workers`: threads that run the row-wise operators (see docs/performance.md, "Workers"). Output,
 * order and rejected rows are the same for every value.
 */
export const WorkersSchema = z
  .union([z.literal('auto'), z.number().int().min(0).max(64)])
  .default(0)
  .describe(
    "Worker threads for the row-wise part of a run (mapping, leading row-wise operators, exact_dedup's hashing, near_dedup's signatures): 0 (default) runs everything on the main thread; N starts N workers; 'auto' starts one fewer than the machine's cores (at least 1) once the run has read two input batches, and keeps running batches on the main thread until they have started. A JSON Lines input (no afterIngest hook; with 'auto', files of 16 MB or more) is read by the workers themselves: the main thread cuts it into ~256 KB chunks at line breaks (each worker holds several: as many bytes in flight as 2 MB chunks would be) and never parses it; each worker parses, maps and runs the row-wise steps on its chunks (when the steps after them are exact_dedup alone, the rows come back in the task table's layout, and the main thread runs a chunk itself whenever every worker already holds 4 MiB of chunks, or when the oldest chunk is not back yet and it has spent less CPU than the busiest worker: work stealing, so the threads even out where the workers are the bound; exact_dedup with or without checkIds) and sends the rows back packed (texts in one string, prompt profiles and exact_dedup hashes as typed arrays). When the mapping names plain columns only (id, prompt, optionally answer; no template, path, messages, features or meta) and every row-wise step judges the prompt by its profile (strip_html, normalize_unicode, normalize_whitespace, length, special-char and alnum filters over the prompt; docs/concepts.md, profilePass), a line that is one flat ASCII JSON object with text in those columns, and that every step keeps as it is, is read straight from its bytes (no JSON.parse, no task object); other lines are read as before. The run also learns from the first chunk how many rows to expect, and exact_dedup sizes its index once. Other inputs: when every worker step is a text-only operator (strip_html, normalize_*, length/ratio filters…), the main thread maps and sends the workers only the tasks' texts. Same rows, order and rejected records for every value; see docs/performance.md.",
  );

const TableNameSchema = z.string().regex(/^[A-Za-z0-9_-]+$/);

/**
 * A task-set pipeline: read raw files, map fields to tasks, run the operator graph, land tasks in
 * LanceDB. One schema for the whole file (operators typed per registered operator), so a config is
 * parsed once and every error names its exact path.
 */
export function taskPipelineConfigSchema(
  registry: Registry<OperatorDefinition<Task, unknown>> = taskOperatorRegistry(),
) {
  return z.strictObject({
    name: z.string().min(1).describe('Name of the pipeline (recorded with each run).'),
    kind: z.literal('tasks').default('tasks'),
    description: z.string().optional(),
    seed: z
      .number()
      .int()
      .default(0)
      .describe('Seed for every random choice of the run (augmentation, MinHash).'),
    db: z
      .string()
      .optional()
      .describe(
        'Database folder, relative to the config file (default: .winnow/db in the project folder; --db overrides).',
      ),
    runsDir: z
      .string()
      .optional()
      .describe(
        'Folder holding one folder per run (the report), relative to the config file (default: .winnow/runs in the project folder).',
      ),
    workers: WorkersSchema,
    engine: z
      .enum(['rows', 'duckdb'])
      .default('rows')
      .describe(
        "Where the leading column-wise steps run (normalize_whitespace, length, special-char, alnum and word-repetition filters; docs/architecture.md, 'Column-wise engine'): 'rows' (default) runs every step row by row; 'duckdb' runs them in an in-process DuckDB, one query per batch, when workers is 0. Same rows, order, rejected records and report either way; 'duckdb' is slower today (each batch's texts cross from JS to DuckDB and back).",
      ),
    input: TaskInputSchema,
    mapping: FieldMappingSchema,
    operators: operatorListSchema(registry)
      .prefault([])
      .describe('The operator graph (see docs/operators.md).'),
    output: z
      .strictObject({
        table: TableNameSchema.default('tasks'),
        rejectedTable: TableNameSchema.default('rejected'),
        commitRows: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_COMMIT_ROWS)
          .describe('Tasks per LanceDB commit (large commits, few versions).'),
        compact: z.boolean().default(true).describe('Merge small fragments after the run.'),
        report: z
          .boolean()
          .default(true)
          .describe('Write <runsDir>/<run id>/report.html (docs/task-report.md).'),
        maxRejectedShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe(
            'Most share of rows read that may fail to read or map before the run fails (exit 3) and lands nothing; a run that rejects every row always fails.',
          ),
      })
      .prefault({}),
  });
}

export const TaskPipelineConfigSchema = taskPipelineConfigSchema();
export type TaskPipelineConfig = z.output<typeof TaskPipelineConfigSchema>;
