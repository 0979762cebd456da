/**
 * A persistent dedup index as operators see it: named indexes of exact keys and MinHash
 * signatures, each entry naming the task it came from. Operators never open storage themselves
 * (they do not import the buffer); the lifecycle passes a store (the LanceDB one lives in
 * src/store/dedup-index.ts), and tests pass the in-memory one below.
 */
export interface DedupIndexEntry {
  /** 53-bit hash of the exact dedup key, with its 32-bit check (see dedup-key.ts). */
  key: number;
  check: number;
  /** MinHash signature (uint32 values) under the index's hashing parameters. */
  signature: number[];
  taskset: string;
  taskId: string;
  runId: string;
}

export interface DedupIndexStore {
  /** Every entry of index `name`; an index that does not exist yet has none. */
  read(name: string): Promise<DedupIndexEntry[]>;
  append(name: string, entries: readonly DedupIndexEntry[]): Promise<void>;
}

/** A store held in memory: for tests and for runs without a database. */
export class MemoryDedupIndexStore implements DedupIndexStore {
  private readonly indexes = new Map<string, DedupIndexEntry[]>();

  async read(name: string): Promise<DedupIndexEntry[]> {
    return [...(this.indexes.get(name) ?? [])];
  }

  async append(name: string, entries: readonly DedupIndexEntry[]): Promise<void> {
    const list = this.indexes.get(name) ?? [];
    list.push(...entries);
    this.indexes.set(name, list);
  }
}
