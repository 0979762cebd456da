import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import {
  type Embedder,
  type EmbeddingModelSpec,
  EmbeddingModelSpecSchema,
  PoolingSchema,
} from '../../models/embedding.ts';
import { loadEmbedder } from '../../models/embedding-load.ts';
import type { Drop, OperatorContext } from '../operator.ts';
import { defineOperator, type OperatorDefinition } from '../operator.ts';
import type { EmbeddingTableSink } from './embed-table.ts';
import { EmbeddingPathSchema, embeddingPath, vectorToJson } from './embed-vector.ts';
import { setTaskValue } from './task-paths.ts';
import { fillTemplate, parseTemplate } from './template.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

const Params = z.strictObject({
  model: EmbeddingModelSpecSchema.describe(
    'A local feature-extraction model folder: { path: ./models/all-MiniLM-L6-v2 } (relative to the config file), loaded offline.',
  ),
  field: TextFieldSchema.default('prompt').describe(
    "Which text is embedded: the prompt (a chat's joined turns), the answer, or both.",
  ),
  template: z
    .string()
    .min(1)
    .superRefine((t, ctx) => {
      const parsed = parseTemplate(t);
      if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `bad template: ${parsed}` });
    })
    .optional()
    .describe('Embed a field template instead of field ("{prompt}\\n{meta.choices}").'),
  pooling: PoolingSchema.default('mean').describe(
    'mean: average of the token vectors (sentence-transformers models); cls: the first token’s vector.',
  ),
  normalize: z.boolean().default(true).describe('Scale vectors to unit length (cosine = dot product).'),
  target: EmbeddingPathSchema.describe('The meta key that receives the vector (a list of numbers).'),
  table: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Also write the vectors to this LanceDB table (id, taskset, run_id, vector: fixed-size list of float32), upserted once the tasks land.',
    ),
});

type EmbedParams = z.output<typeof Params>;

/** The model, loaded on the first batch (operators are created synchronously) and cached per process. */
function lazyEmbedder(spec: EmbeddingModelSpec): (ctx: OperatorContext) => Promise<Embedder> {
  let loading: Promise<Embedder> | null = null;
  return (ctx) => {
    if (loading === null) {
      loading = loadEmbedder(spec, { baseDir: ctx.baseDir ?? process.cwd() });
      // A failed load is retried on the next batch rather than cached.
      loading.catch(() => {
        loading = null;
      });
    }
    return loading;
  };
}

/** What a run lends the operator: the LanceDB sink for `table` (task pipelines). */
export interface EmbedResources {
  sink?: EmbeddingTableSink;
}

/**
 * embed over a run's resources. Without a sink, `table` is a config error; task pipelines lend the
 * LanceDB one (lifecycle/run-resources.ts), the registry holds the resource-less definition.
 */
export function embedOperator(resources: EmbedResources = {}): OperatorDefinition<Task, EmbedParams> {
  return defineOperator<Task, typeof Params>({
    name: 'embed',
    kind: 'map',
    needsModel: true,
    description:
      'Embed each task’s text with a local feature-extraction model (ONNX, offline) into a meta vector; empty texts are dropped, long ones cut to the model’s length.',
    params: Params,
    create(p) {
      if (p.table !== undefined && resources.sink === undefined)
        throw new ConfigError({
          path: 'table',
          message: `embedding table '${p.table}' needs a run with a database`,
          hint: 'run it in a task pipeline, or leave out table (the vectors stay in meta)',
        });
      const embedder = lazyEmbedder(p.model);
      const template = p.template === undefined ? null : parseTemplate(p.template);
      const target = embeddingPath(p.target);
      const what = p.template !== undefined ? 'template' : p.field;
      return {
        name: 'embed',
        kind: 'map',
        async process(batch, ctx) {
          const model = await embedder(ctx);
          const texts: string[] = [];
          const tasks: Task[] = [];
          const dropped: Drop<Task>[] = [];
          for (const task of batch) {
            let text: string;
            if (template !== null && typeof template !== 'string') {
              const filled = fillTemplate(template, task, 'lines');
              if (filled.missing.length > 0) {
                dropped.push({
                  row: task,
                  reason: `nothing to embed: template misses ${filled.missing.join(', ')}`,
                });
                continue;
              }
              text = filled.text;
            } else text = readText(task, p.field);
            // An empty text has no meaning to embed, and a vector of [CLS][SEP] would make every
            // empty row a near-duplicate of every other: quarantined, with the reason.
            if (text.trim() === '') {
              dropped.push({ row: task, reason: `nothing to embed: empty ${what}` });
              continue;
            }
            texts.push(text);
            tasks.push(task);
          }
          const { vectors, truncated } = await model.embed(texts, {
            pooling: p.pooling,
            normalize: p.normalize,
          });
          const cut = truncated.filter(Boolean).length;
          if (cut > 0)
            ctx.warn(`${cut} text(s) longer than the model's ${model.maxLength} tokens were cut to fit`);
          const rows = tasks.map((task, i) => setTaskValue(task, target, vectorToJson(vectors[i]!)));
          if (p.table !== undefined && rows.length > 0)
            await resources.sink!.record(
              p.table,
              model.dim,
              rows.map((t, i) => ({
                taskset: t.taskset,
                taskId: t.id,
                runId: ctx.runId,
                vector: vectors[i]!,
              })),
            );
          return { rows, dropped, metrics: { embedded: rows.length, truncated: cut } };
        },
      };
    },
  });
}

export const embedOp = embedOperator();
