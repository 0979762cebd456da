import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { compilePath, MISSING } from '../../io/field-path.ts';
import { readDataset } from '../../io/reader.ts';
import type { Drop, OperatorContext } from '../operator.ts';
import { defineOperator, type OperatorDefinition } from '../operator.ts';
import type { DedupIndexEntry, DedupIndexStore } from './dedup-index.ts';
import { dedupKeyHash } from './dedup-key.ts';
import { MinHasher } from './minhash.ts';
import { DEFAULT_NGRAM } from './near-dedup.ts';
import { type Collision, ReferenceSet } from './reference-set.ts';
import type { ReferenceTaskTables } from './reference-tables.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

const ReferenceFileSchema = z.strictObject({
  /** A JSONL/JSON/CSV/Parquet/Arrow file (relative paths resolve against the config file's folder). */
  file: z.string().min(1),
  /** Column (or dotted path) holding the text; several are joined with a newline, like the task field `all`. */
  field: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('question'),
});

const ReferenceTableSchema = z.strictObject({
  /** A task table in a LanceDB database; its tasks' text is read with the operator's `field`. */
  table: z.string().min(1),
  /** The database folder (default: the run's database; relative paths resolve against the config file's folder). */
  db: z.string().min(1).optional(),
  taskset: z.string().min(1).optional(),
});

const Params = z
  .strictObject({
    /** The task text compared with the references. */
    field: TextFieldSchema.default('prompt'),
    references: z.array(z.union([ReferenceFileSchema, ReferenceTableSchema])).default([]),
    /** Exact match of the normal form (exact_dedup's defaults: NFKC, lower case, no punctuation, collapsed spaces). */
    exact: z.boolean().default(true),
    /** Word n-gram overlap: drop when at least `threshold` of the task's n-grams occur in the references. */
    ngram: z
      .union([
        z.literal(false),
        z.strictObject({
          n: z.number().int().min(1).default(13),
          threshold: z.number().gt(0).max(1).default(0.5),
        }),
      ])
      .default({ n: 13, threshold: 0.5 }),
    /** MinHash-LSH near match (same hashing as near_dedup). */
    minhash: z
      .union([
        z.literal(false),
        z
          .strictObject({
            tokenizer: z.enum(['char', 'word']).default('char'),
            ngram: z.number().int().min(1).optional(),
            permutations: z.number().int().min(1).max(1024).default(128),
            bands: z.number().int().min(1).default(16),
            threshold: z.number().gt(0).max(1).default(0.8),
            seed: z.number().int().default(1),
          })
          .refine((m) => m.permutations % m.bands === 0, {
            message: 'permutations must be a multiple of bands',
            path: ['bands'],
          }),
      ])
      .default({ tokenizer: 'char', permutations: 128, bands: 16, threshold: 0.8, seed: 1 }),
    /** A persisted index: check against what earlier runs recorded, and record what this run keeps. */
    index: z
      .strictObject({
        name: z.string().min(1),
        taskset: z.string().min(1).optional(),
        check: z.boolean().default(true),
        record: z.boolean().default(true),
      })
      .optional(),
  })
  .refine((p) => p.references.length > 0 || p.index !== undefined, {
    message: 'give at least one reference file or an index',
    path: ['references'],
  });

type DecontaminateParams = z.output<typeof Params>;

function describe(c: Collision): string {
  if (c.method === 'exact') return `contaminated: exact match of reference ${c.reference}`;
  if (c.method === 'ngram')
    return `contaminated: n-gram overlap ${c.score.toFixed(2)} with reference ${c.reference} (${c.shared}/${c.total} n-grams shared)`;
  return `contaminated: minhash similarity ${c.score.toFixed(2)} with reference ${c.reference}`;
}

/** A cell as text: strings, and numbers or booleans (CSV cells are typed by the reader); anything else is no text. */
function asText(v: unknown): string | null {
  if (v === MISSING) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/**
 * The reference rows: files (label `file:row`) and task tables (`table name:id`) in the order
 * given, then the persisted index (`index name: taskset/id (run R)`).
 */
async function loadReferences(
  p: DecontaminateParams,
  set: ReferenceSet,
  res: Required<Pick<DecontaminateResources, 'baseDir' | 'dbDir'>> & DecontaminateResources,
): Promise<{ skipped: number; warnings: string[] }> {
  let skipped = 0;
  const warnings: string[] = [];
  const { baseDir } = res;
  const store = res.index ?? null;
  for (const ref of p.references) {
    if ('table' in ref) {
      const db = ref.db === undefined ? res.dbDir : resolve(baseDir, ref.db);
      for (const t of await res.tables!.read(db, ref.table, ref.taskset)) {
        const text = readText(t, p.field);
        if (text.trim() === '') {
          skipped++;
          continue;
        }
        set.addText(`table ${ref.table}:${t.id}`, text, dedupKeyHash(text));
      }
      continue;
    }
    const fields = (Array.isArray(ref.field) ? ref.field : [ref.field]).map(compilePath);
    const shown = basename(ref.file);
    for await (const batch of readDataset(resolve(baseDir, ref.file))) {
      skipped += batch.rejected.length;
      for (const r of batch.records) {
        const parts = fields.map((get) => asText(get(r.fields)));
        if (parts.some((v) => v === null)) {
          // A reference row without the text cannot contaminate anything: counted, not fatal.
          skipped++;
          continue;
        }
        const text = parts.join('\n');
        if (text.trim() === '') {
          skipped++;
          continue;
        }
        set.addText(`${shown}:${r.source.row}`, text, dedupKeyHash(text));
      }
    }
  }
  if (skipped > 0)
    warnings.push(`${skipped} reference rows skipped (missing or empty text field, or unreadable)`);
  if (p.index?.check && store) {
    for (const e of await store.read(p.index.name))
      set.addEntry(`index ${p.index.name}: ${e.taskset}/${e.taskId} (run ${e.runId})`, e, e.signature);
  }
  return { skipped, warnings };
}

/** What a run lends the operator: the persisted index store, and the folder relative reference paths resolve against. */
export interface DecontaminateResources {
  index?: DedupIndexStore;
  /** Reads `{ table }` references; `dbDir` is the run's database, their default. */
  tables?: ReferenceTaskTables;
  dbDir?: string;
  /** The config file's folder (default: the working directory). */
  baseDir?: string;
}

/**
 * Validate, then act: a missing reference file or table, or an index without a store, fails the
 * build, before any table is written.
 */
function validateReferences(
  p: DecontaminateParams,
  resources: DecontaminateResources,
  baseDir: string,
): void {
  p.references.forEach((ref, i) => {
    if ('table' in ref) {
      if (resources.tables === undefined || resources.dbDir === undefined)
        throw new ConfigError({
          path: `params.references[${i}].table`,
          message: `reading table '${ref.table}' needs a run with a database`,
          hint: 'run it in a task pipeline, or export the table to a file',
        });
      const db = ref.db === undefined ? resources.dbDir : resolve(baseDir, ref.db);
      if (!resources.tables.has(db, ref.table))
        throw new ConfigError({
          path: `params.references[${i}].table`,
          message: `no table '${ref.table}' in the database ${db}`,
          hint: 'winnow runs --db <folder> lists what a database holds',
        });
      return;
    }
    const file = resolve(baseDir, ref.file);
    if (!existsSync(file))
      throw new ConfigError({
        path: `params.references[${i}].file`,
        message: `reference file ${file} does not exist`,
        hint: "check the path; relative paths resolve against the config file's folder",
      });
  });
  if (p.index && (resources.index ?? null) === null)
    throw new ConfigError({
      path: 'index',
      message: `dedup index '${p.index.name}' needs a run with a database`,
      hint: 'run it in a task pipeline, or leave out index',
    });
}

/** The (still empty) reference set the params ask for, with its MinHash hasher when MinHash is on. */
function referenceSet(p: DecontaminateParams): { hasher: MinHasher | null; set: ReferenceSet } {
  const m = p.minhash;
  const hasher = m
    ? new MinHasher({
        tokenizer: m.tokenizer,
        ngram: m.ngram ?? DEFAULT_NGRAM[m.tokenizer],
        permutations: m.permutations,
        seed: m.seed,
        lowercase: true,
      })
    : null;
  const set = new ReferenceSet({
    exact: p.exact,
    ngram: p.ngram === false ? null : p.ngram,
    minhash: m && hasher ? { hasher, bands: m.bands, threshold: m.threshold } : null,
  });
  return { hasher, set };
}

/**
 * Each task against the reference set, in order: a hit is dropped naming the reference row, an
 * empty text is kept (nothing to compare), the rest are kept and handed to `record`.
 */
function screen(
  batch: readonly Task[],
  field: DecontaminateParams['field'],
  set: ReferenceSet,
  record: ((task: Task, text: string, exact: ReturnType<typeof dedupKeyHash>) => void) | null,
): { rows: Task[]; dropped: Drop<Task>[]; byMethod: Record<Collision['method'], number>; empty: number } {
  const rows: Task[] = [];
  const dropped: Drop<Task>[] = [];
  const byMethod = { exact: 0, ngram: 0, minhash: 0 };
  let empty = 0;
  for (const task of batch) {
    const text = readText(task, field);
    if (text.trim() === '') {
      // Nothing to compare: an empty text cannot be contaminated (length filters handle it).
      empty++;
      rows.push(task);
      continue;
    }
    const exact = dedupKeyHash(text);
    const hit = set.match(text, exact);
    if (hit) {
      byMethod[hit.method]++;
      dropped.push({ row: task, reason: describe(hit) });
      continue;
    }
    rows.push(task);
    record?.(task, text, exact);
  }
  return { rows, dropped, byMethod, empty };
}

/**
 * The decontaminate operator over a run's resources. Without an index store, `index` is a config
 * error. The task pipeline builds it with its LanceDB store (lifecycle/run-resources.ts); the
 * registry holds the resource-less one.
 */
export function decontaminateOperator(
  resources: DecontaminateResources = {},
): OperatorDefinition<Task, DecontaminateParams> {
  const store = resources.index ?? null;
  const baseDir = resources.baseDir ?? process.cwd();
  return defineOperator<Task, typeof Params>({
    name: 'decontaminate',
    kind: 'dedup',
    description:
      'Drop tasks that overlap reference sets (exact, word n-gram, MinHash) or a persisted dedup index; each drop names the reference row.',
    params: Params,
    create(p) {
      validateReferences(p, resources, baseDir);
      const { hasher, set } = referenceSet(p);
      let loaded: Promise<{ skipped: number; warnings: string[] }> | null = null;
      const kept: DedupIndexEntry[] = [];
      const sig = new Uint32Array(hasher?.permutations ?? 0);

      const load = async (ctx: OperatorContext) => {
        if (loaded === null) {
          loaded = loadReferences(p, set, { ...resources, baseDir, dbDir: resources.dbDir ?? '' });
          for (const w of (await loaded).warnings) ctx.warn(w);
          return (await loaded).skipped;
        }
        await loaded;
        return 0;
      };

      return {
        name: 'decontaminate',
        kind: 'dedup',
        async process(batch, ctx) {
          const skipped = await load(ctx);
          const record =
            p.index?.record && store
              ? (task: Task, text: string, exact: ReturnType<typeof dedupKeyHash>) => {
                  if (hasher) hasher.signature(text, sig, 0);
                  kept.push({
                    key: exact.key,
                    check: exact.check,
                    signature: Array.from(sig),
                    taskset: p.index?.taskset ?? task.taskset,
                    taskId: task.id,
                    runId: ctx.runId,
                  });
                }
              : null;
          const { rows, dropped, byMethod, empty } = screen(batch, p.field, set, record);
          return {
            rows,
            dropped,
            metrics: {
              contaminated_exact: byMethod.exact,
              contaminated_ngram: byMethod.ngram,
              contaminated_minhash: byMethod.minhash,
              empty_texts: empty,
              reference_rows_skipped: skipped,
            },
          };
        },
        async flush(ctx) {
          await load(ctx);
          // Recorded at the end of the stream, so a later run or dataset is checked against this one.
          if (p.index?.record && store && kept.length > 0) await store.append(p.index.name, kept.splice(0));
          return { rows: [], dropped: [] };
        },
      };
    },
  });
}

export const decontaminateOp = decontaminateOperator();
