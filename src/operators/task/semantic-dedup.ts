import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator, type OperatorDefinition } from '../operator.ts';
import { EmbeddingPathSchema, embeddingPath, readEmbedding } from './embed-vector.ts';
import {
  cosine,
  MemorySemanticIndexStore,
  type SemanticIndexEntry,
  type SemanticIndexStore,
  type SemanticNeighbor,
  type SemanticSearch,
} from './semantic-dedup-index.ts';

/** Below this many rows a table is searched exactly (flat); at or above it through an IVF index. */
export const DEFAULT_ANN_MIN_ROWS = 10_000;

const Params = z.strictObject({
  embedding: EmbeddingPathSchema.describe('The meta key holding each task’s vector (what embed wrote).'),
  threshold: z
    .number()
    .gt(0)
    .max(1)
    .default(0.95)
    .describe('Drop a task whose cosine similarity to a kept task is at least this.'),
  index: z
    .strictObject({
      table: z.string().min(1).default('semantic_index').describe('The LanceDB table of recorded vectors.'),
      check: z.boolean().default(true).describe('Compare with what earlier runs recorded.'),
      record: z.boolean().default(true).describe('Record the tasks this run keeps (once they have landed).'),
    })
    .optional()
    .describe('A persisted index, so a second run or dataset is deduplicated against the first.'),
  annMinRows: z
    .number()
    .int()
    .min(256)
    .default(DEFAULT_ANN_MIN_ROWS)
    .describe(
      'Tables with at least this many vectors are searched through an ANN (IVF) index, smaller ones exactly.',
    ),
  nprobes: z
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('IVF partitions searched per query once an ANN index serves.'),
});

type SemanticDedupParams = z.output<typeof Params>;

function describe(n: SemanticNeighbor, threshold: number, table: string | null): string {
  const where = n.from === 'run' ? 'kept earlier in this run' : `in index '${table}', run ${n.runId}`;
  return `semantic duplicate: cosine similarity ${n.similarity.toFixed(4)} ≥ ${threshold} with ${n.taskset}/${n.taskId} (${where})`;
}

/** A task with its embedding, waiting to be compared. */
interface Candidate {
  task: Task;
  vector: Float32Array;
}

/**
 * The batch's tasks with a usable vector; those without one (missing, or a dimension other than
 * the first vector's) are dropped. `dim` is 0 until the run's first vector fixes it.
 */
function splitByEmbedding(
  batch: readonly Task[],
  path: ReturnType<typeof embeddingPath>,
  dimBefore: number,
): { candidates: Candidate[]; dropped: Drop<Task>[]; dim: number } {
  let dim = dimBefore;
  const dropped: Drop<Task>[] = [];
  const candidates: Candidate[] = [];
  for (const task of batch) {
    const v = readEmbedding(task, path);
    if (!(v instanceof Float32Array)) {
      dropped.push({ row: task, reason: v.missing });
      continue;
    }
    if (dim === 0) dim = v.length;
    if (v.length !== dim) {
      dropped.push({ row: task, reason: `embedding has ${v.length} values, earlier tasks ${dim}` });
      continue;
    }
    candidates.push({ task, vector: v });
  }
  return { candidates, dropped, dim };
}

/**
 * Keep or drop each candidate in order: its nearest neighbour is the closer of the store's answer
 * and this batch's earlier kept rows; at or above the threshold it is dropped (appended to `dropped`).
 */
function judge(
  candidates: readonly Candidate[],
  nearest: ReadonlyArray<SemanticNeighbor | null | undefined>,
  threshold: number,
  table: string | null,
  runId: string,
  dropped: Drop<Task>[],
): { rows: Task[]; kept: SemanticIndexEntry[]; fromRun: number; fromIndex: number } {
  const rows: Task[] = [];
  const kept: SemanticIndexEntry[] = [];
  let fromRun = 0;
  let fromIndex = 0;
  candidates.forEach((c, i) => {
    let best = nearest[i] ?? null;
    for (const k of kept) {
      const sim = cosine(c.vector, k.vector);
      if (best === null || sim > best.similarity)
        best = { taskset: k.taskset, taskId: k.taskId, runId: k.runId, from: 'run', similarity: sim };
    }
    if (best !== null && best.similarity >= threshold) {
      if (best.from === 'run') fromRun++;
      else fromIndex++;
      dropped.push({ row: c.task, reason: describe(best, threshold, table) });
      return;
    }
    rows.push(c.task);
    kept.push({ taskset: c.task.taskset, taskId: c.task.id, runId, vector: c.vector });
  });
  return { rows, kept, fromRun, fromIndex };
}

/** What a run lends the operator: the vector store (LanceDB in task pipelines). */
export interface SemanticDedupResources {
  store?: SemanticIndexStore;
}

/**
 * semantic_dedup over a run's resources. Without a store, search runs in memory and `index`
 * (which must persist) is a config error; task pipelines lend the LanceDB store
 * (lifecycle/run-resources.ts), the registry holds the resource-less definition.
 */
export function semanticDedupOperator(
  resources: SemanticDedupResources = {},
): OperatorDefinition<Task, SemanticDedupParams> {
  return defineOperator<Task, typeof Params>({
    name: 'semantic_dedup',
    kind: 'dedup',
    needsModel: true,
    description:
      'Drop tasks whose embedding is within a cosine-similarity threshold of a kept task (this run, or a persisted LanceDB index); first seen wins, each drop names the kept task.',
    params: Params,
    create(p) {
      if (p.index && resources.store === undefined)
        throw new ConfigError({
          path: 'index',
          message: `semantic index '${p.index.table}' needs a run with a database`,
          hint: 'run it in a task pipeline, or leave out index',
        });
      const store = resources.store ?? new MemorySemanticIndexStore();
      const path = embeddingPath(p.embedding);
      const table = p.index?.table ?? null;
      let search: Promise<SemanticSearch> | null = null;
      let dim = 0;
      return {
        name: 'semantic_dedup',
        kind: 'dedup',
        async process(batch, ctx) {
          const split = splitByEmbedding(batch, path, dim);
          dim = split.dim;
          const { candidates, dropped } = split;
          if (candidates.length === 0) return { rows: [], dropped };
          search ??= store.open({
            table,
            check: p.index?.check ?? false,
            record: p.index?.record ?? false,
            dim,
            annMinRows: p.annMinRows,
            nprobes: p.nprobes,
          });
          const s = await search;
          const ann = s.stats().annIndexes > 0 ? 1 : 0;
          // Earlier batches and the persisted index through the store; this batch's earlier rows here.
          const nearest = await s.nearest(candidates.map((c) => c.vector));
          const { rows, kept, fromRun, fromIndex } = judge(
            candidates,
            nearest,
            p.threshold,
            table,
            ctx.runId,
            dropped,
          );
          await s.add(kept);
          return {
            rows,
            dropped,
            metrics: {
              semantic_duplicates_run: fromRun,
              semantic_duplicates_index: fromIndex,
              missing_embedding: batch.length - candidates.length,
              // Batches whose search went through an ANN index (approximate; see docs/models.md).
              ann_batches: ann,
            },
          };
        },
      };
    },
  });
}

export const semanticDedupOp = semanticDedupOperator();
