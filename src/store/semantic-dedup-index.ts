import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, type Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { ConfigError } from '../core/errors.ts';
import type { EmbeddingTableSink } from '../operators/task/embed-table.ts';
import type {
  SemanticIndexEntry,
  SemanticIndexStore,
  SemanticNeighbor,
  SemanticSearch,
  SemanticSearchOptions,
} from '../operators/task/semantic-dedup-index.ts';
import { connect, openOrCreateTable } from './connection.ts';

/** Scratch folders not yet removed; a failed run's are removed when the process exits. */
const liveScratch = new Set<string>();
let exitHookInstalled = false;
function trackScratch(dir: string): void {
  liveScratch.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const d of liveScratch) rmSync(d, { recursive: true, force: true });
  });
}

/** embed's tables get an ANN index from this many rows (inspect --similar searches them). */
const DEFAULT_TABLE_ANN_ROWS = 10_000;

/** Name of the vector column in semantic index tables (what inspect --similar finds by type). */
export const VECTOR_COLUMN = 'vector';

function schemaFor(dim: number): arrow.Schema {
  return new arrow.Schema([
    new arrow.Field('id', new arrow.Utf8(), false),
    new arrow.Field('taskset', new arrow.Utf8(), false),
    new arrow.Field('run_id', new arrow.Utf8(), false),
    new arrow.Field(
      VECTOR_COLUMN,
      new arrow.FixedSizeList(dim, new arrow.Field('item', new arrow.Float32(), true)),
      false,
    ),
    new arrow.Field('created_at', new arrow.Float64(), false),
  ]);
}

/** Entries as one Arrow table, the vectors as one contiguous float32 child (no per-value builder). */
function encode(entries: readonly SemanticIndexEntry[], dim: number, createdAt: number): arrow.Table {
  const schema = schemaFor(dim);
  const utf8 = (get: (e: SemanticIndexEntry) => string) =>
    arrow.vectorFromArray(entries.map(get), new arrow.Utf8()).data[0]!;
  const flat = new Float32Array(entries.length * dim);
  for (const [i, e] of entries.entries()) flat.set(e.vector, i * dim);
  const vectors = arrow.makeData({
    type: schema.fields[3]!.type as arrow.FixedSizeList<arrow.Float32>,
    length: entries.length,
    nullCount: 0,
    child: arrow.makeData({ type: new arrow.Float32(), length: flat.length, nullCount: 0, data: flat }),
  });
  const children = [
    utf8((e) => e.taskId),
    utf8((e) => e.taskset),
    utf8((e) => e.runId),
    vectors,
    arrow.makeData({
      type: new arrow.Float64(),
      length: entries.length,
      nullCount: 0,
      data: new Float64Array(entries.length).fill(createdAt),
    }),
  ];
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({ type: new arrow.Struct(schema.fields), length: entries.length, nullCount: 0, children }),
  );
  return new arrow.Table(schema, [batch]);
}

/** The width of a table's vector column, or null when it has none. */
export async function vectorWidth(table: Table): Promise<number | null> {
  const field = (await table.schema()).fields.find((f) => f.name === VECTOR_COLUMN);
  const type = field?.type as { listSize?: number } | undefined;
  return typeof type?.listSize === 'number' ? type.listSize : null;
}

async function hasVectorIndex(table: Table): Promise<boolean> {
  return (await table.listIndices()).some((i) => i.columns.includes(VECTOR_COLUMN));
}

/**
 * An IVF_FLAT index (cosine) once a table has `minRows` vectors: exact distances inside the probed
 * partitions, so the only recall loss is a neighbour in a partition not probed. Rows added after
 * the index was built are still searched (exactly) until `optimize()` folds them in.
 */
async function ensureAnnIndex(table: Table, minRows: number): Promise<boolean> {
  if (await hasVectorIndex(table)) return true;
  const rows = await table.countRows();
  if (rows < minRows) return false;
  await table.createIndex(VECTOR_COLUMN, {
    config: Index.ivfFlat({
      distanceType: 'cosine',
      numPartitions: Math.max(1, Math.round(Math.sqrt(rows))),
    }),
  });
  return true;
}

/** The nearest row of `table` to each query (one multi-vector LanceDB search). */
async function nearestIn(
  table: Table,
  queries: readonly Float32Array[],
  from: 'run' | 'index',
  nprobes: number,
): Promise<(SemanticNeighbor | null)[]> {
  const out: (SemanticNeighbor | null)[] = queries.map(() => null);
  if (queries.length === 0 || (await table.countRows()) === 0) return out;
  let q = table.query().nearestTo(Array.from(queries[0]!));
  for (const v of queries.slice(1)) q = q.addQueryVector(Array.from(v));
  const result = await q
    .distanceType('cosine')
    .nprobes(nprobes)
    .limit(1)
    .select(['id', 'taskset', 'run_id', '_distance'])
    .toArray();
  for (const r of result as Array<Record<string, unknown>>) {
    const i = queries.length === 1 ? 0 : Number(r.query_index);
    const similarity = 1 - Number(r._distance);
    const prev = out[i];
    if (prev !== null && prev !== undefined && prev.similarity >= similarity) continue;
    out[i] = { taskset: String(r.taskset), taskId: String(r.id), runId: String(r.run_id), from, similarity };
  }
  return out;
}

/**
 * semantic_dedup's vectors in LanceDB. The persisted index is a table of the run's database (one
 * table per index: the vector width is part of its schema). What a run keeps goes first to a
 * scratch LanceDB table in a temp folder — searched like the index — and reaches the persisted
 * table only in `landPending()`, which the task pipeline calls once the run's tasks have landed:
 * a failed run records nothing. It also holds embed's `table` rows (see `record`) until then.
 */
export class LanceSemanticIndexStore implements SemanticIndexStore, EmbeddingTableSink {
  readonly dbDir: string | undefined;
  private readonly pending: Array<{
    table: string;
    dim: number;
    annMinRows: number;
    entries: SemanticIndexEntry[];
    /** embed's table: rows replace earlier ones of the same (taskset, id); an index only appends. */
    upsert?: boolean;
  }> = [];
  private readonly checkedWidths = new Map<string, number>();
  private readonly scratchDirs: string[] = [];

  constructor(dbDir?: string) {
    this.dbDir = dbDir;
  }

  async open(opts: SemanticSearchOptions): Promise<SemanticSearch> {
    const db = await connect(this.dbDir);
    let persisted: Table | null = null;
    if (opts.table !== null && opts.check && (await db.tableNames()).includes(opts.table)) {
      persisted = await db.openTable(opts.table);
      const width = await vectorWidth(persisted);
      if (width !== opts.dim)
        throw new ConfigError({
          path: 'params.index.table',
          message: `semantic index table '${opts.table}' holds ${width === null ? 'no vector column' : `vectors of width ${width}`}, the embeddings have ${opts.dim}`,
          hint: 'an index belongs to one embedding model: name another table for this model',
        });
    }
    const scratchDir = mkdtempSync(join(tmpdir(), 'winnow-semantic-'));
    this.scratchDirs.push(scratchDir);
    trackScratch(scratchDir);
    const scratch = await openOrCreateTable(await connect(scratchDir), 'kept', schemaFor(opts.dim));
    const pending =
      opts.table !== null && opts.record
        ? {
            table: opts.table,
            dim: opts.dim,
            annMinRows: opts.annMinRows,
            entries: [] as SemanticIndexEntry[],
          }
        : null;
    if (pending) this.pending.push(pending);
    const indexRows = persisted === null ? 0 : await persisted.countRows();
    // A large index table written before it had an ANN index (or under a higher annMinRows) gets one now.
    const indexIndexed = persisted !== null && (await ensureAnnIndex(persisted, opts.annMinRows));
    let scratchIndexed = false;
    let runRows = 0;
    return {
      async nearest(queries) {
        const a =
          persisted === null
            ? queries.map(() => null)
            : await nearestIn(persisted, queries, 'index', opts.nprobes);
        const b =
          runRows === 0 ? queries.map(() => null) : await nearestIn(scratch, queries, 'run', opts.nprobes);
        return queries.map((_, i) => {
          const x = a[i] ?? null;
          const y = b[i] ?? null;
          if (x === null) return y;
          if (y === null) return x;
          // Ties go to the persisted index: it was seen first.
          return y.similarity > x.similarity ? y : x;
        });
      },
      async add(entries) {
        if (entries.length === 0) return;
        await scratch.add(encode(entries, opts.dim, Date.now()));
        runRows += entries.length;
        pending?.entries.push(...entries);
        scratchIndexed ||= await ensureAnnIndex(scratch, opts.annMinRows);
      },
      stats: () => ({ indexRows, runRows, annIndexes: Number(indexIndexed) + Number(scratchIndexed) }),
    };
  }

  /** embed's `table`: rows held until the run's tasks land, then upserted by (taskset, id). */
  async record(table: string, dim: number, entries: readonly SemanticIndexEntry[]): Promise<void> {
    if (!this.checkedWidths.has(table)) {
      const db = await connect(this.dbDir);
      if ((await db.tableNames()).includes(table)) {
        const width = await vectorWidth(await db.openTable(table));
        if (width !== dim)
          throw new ConfigError({
            path: 'params.table',
            message: `embedding table '${table}' holds ${width === null ? 'no vector column' : `vectors of width ${width}`}, the model gives ${dim}`,
            hint: 'a table belongs to one embedding model: name another table for this model',
          });
      }
      this.checkedWidths.set(table, dim);
    }
    let p = this.pending.find((x) => x.upsert && x.table === table);
    if (p === undefined) {
      p = { table, dim, annMinRows: DEFAULT_TABLE_ANN_ROWS, entries: [], upsert: true };
      this.pending.push(p);
    }
    p.entries.push(...entries);
  }

  /** Write what runs kept to their persisted tables (building or refreshing the ANN index); returns rows written. */
  async landPending(): Promise<number> {
    let n = 0;
    const db = await connect(this.dbDir);
    for (const p of this.pending.splice(0)) {
      if (p.entries.length === 0) continue;
      const table = await openOrCreateTable(db, p.table, schemaFor(p.dim));
      const rows = encode(p.entries, p.dim, Date.now());
      if (p.upsert)
        await table
          .mergeInsert(['taskset', 'id'])
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute(rows);
      else await table.add(rows);
      n += p.entries.length;
      if (await hasVectorIndex(table)) await table.optimize();
      else await ensureAnnIndex(table, p.annMinRows);
    }
    this.dispose();
    return n;
  }

  /** Remove the scratch tables (also after a failed run). */
  dispose(): void {
    for (const dir of this.scratchDirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
      liveScratch.delete(dir);
    }
  }
}
