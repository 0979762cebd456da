/**
 * The vector search semantic_dedup asks for, as operators see it. Operators never open storage
 * (they do not import the buffer): a task pipeline lends the LanceDB implementation
 * (src/store/semantic-dedup-index.ts); the in-memory one below serves runs without a database and tests.
 */

/** A kept row a query collided with. */
export interface SemanticNeighbor {
  taskset: string;
  taskId: string;
  runId: string;
  /** `run`: kept earlier in this run; `index`: recorded in the persisted index by an earlier run. */
  from: 'run' | 'index';
  /** Cosine similarity, in [-1, 1]. */
  similarity: number;
}

export interface SemanticIndexEntry {
  taskset: string;
  taskId: string;
  runId: string;
  vector: Float32Array;
}

export interface SemanticSearch {
  /** For each query, the most similar kept vector (this run's, and the persisted index's when checked), or null. */
  nearest(queries: readonly Float32Array[]): Promise<(SemanticNeighbor | null)[]>;
  /** Rows this run keeps: searchable at once; written to the persisted index (when recording) once the run's tasks land. */
  add(entries: readonly SemanticIndexEntry[]): Promise<void>;
  /** How the last search was served, for the step metrics. */
  stats(): { indexRows: number; runRows: number; annIndexes: number };
}

export interface SemanticSearchOptions {
  /** The persisted index (a table of vectors), or null for a run-only dedup. */
  table: string | null;
  check: boolean;
  record: boolean;
  /** Vector width (the model's). */
  dim: number;
  /** A table with at least this many rows is searched through an ANN index (IVF); smaller ones exactly. */
  annMinRows: number;
  /** IVF partitions probed per query when an ANN index serves the search. */
  nprobes: number;
}

export interface SemanticIndexStore {
  open(opts: SemanticSearchOptions): Promise<SemanticSearch>;
}

/** Cosine similarity in float64. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Exact search over vectors held in memory; persisted indexes live as long as the store. */
export class MemorySemanticIndexStore implements SemanticIndexStore {
  private readonly tables = new Map<string, SemanticIndexEntry[]>();

  /** What table `name` holds (recorded entries, oldest first). */
  entries(name: string): readonly SemanticIndexEntry[] {
    return this.tables.get(name) ?? [];
  }

  async open(opts: SemanticSearchOptions): Promise<SemanticSearch> {
    const persisted = opts.table !== null && opts.check ? [...this.entries(opts.table)] : [];
    const run: SemanticIndexEntry[] = [];
    const tables = this.tables;
    const best = (q: Float32Array, list: readonly SemanticIndexEntry[], from: 'run' | 'index') => {
      let out: SemanticNeighbor | null = null;
      for (const e of list) {
        const s = cosine(q, e.vector);
        // Strictly greater: among equally similar rows the first recorded is named.
        if (out === null || s > out.similarity)
          out = { taskset: e.taskset, taskId: e.taskId, runId: e.runId, from, similarity: s };
      }
      return out;
    };
    return {
      async nearest(queries) {
        return queries.map((q) => {
          const a = best(q, persisted, 'index');
          const b = best(q, run, 'run');
          if (a === null) return b;
          if (b === null) return a;
          return b.similarity > a.similarity ? b : a;
        });
      },
      async add(entries) {
        run.push(...entries);
        if (opts.table !== null && opts.record) {
          const list = tables.get(opts.table) ?? [];
          list.push(...entries);
          tables.set(opts.table, list);
        }
      },
      stats: () => ({ indexRows: persisted.length, runRows: run.length, annIndexes: 0 }),
    };
  }
}
