import type { SemanticIndexEntry } from './semantic-dedup-index.ts';

/**
 * Where `embed` writes its vectors as a real LanceDB vector column (a fixed-size list of float32),
 * when given `table`. Operators never open storage: a task pipeline lends the LanceDB
 * implementation (LanceSemanticIndexStore, src/store/semantic-dedup-index.ts), which holds the
 * rows until the run's tasks have landed and then upserts them by (taskset, id).
 */
export interface EmbeddingTableSink {
  /** Queue rows for `table`; refuses (ConfigError) a table whose vectors have another width. */
  record(table: string, dim: number, entries: readonly SemanticIndexEntry[]): Promise<void>;
}
