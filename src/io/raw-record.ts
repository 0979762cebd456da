/**
 * What a reader yields: raw rows (column name → value) with where they came from, and the
 * rows it could not read, each with a reason. Mapping to `Task` happens later (see mapping.ts).
 */

/** Where a raw row came from. `row` is the 1-based line for JSONL/CSV (CSV: the line where the
 * record starts), the 0-based element index for JSON arrays, the 0-based row index for Parquet/Arrow. */
export interface RawSource {
  file: string;
  row: number;
}

export interface RawRecord {
  fields: Record<string, unknown>;
  source: RawSource;
}

/** A row a reader could not turn into a record. `payload` is the raw text, truncated. */
export interface ReadRejection {
  /** e.g. `read:jsonl`, `read:csv`, `map`. */
  step: string;
  file: string;
  /** Same numbering as `RawSource.row`; -1 when the problem is not tied to one row. */
  row: number;
  reason: string;
  payload: string;
}

export interface RawBatch {
  records: RawRecord[];
  rejected: ReadRejection[];
}

export type DatasetFormat = 'jsonl' | 'json' | 'csv' | 'parquet' | 'arrow';
