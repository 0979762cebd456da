/**
 * How many rows a run will read: the size of its inputs at the rows per byte of the first chunk
 * read. Operators that keep a row index (exact_dedup) size it once from this instead of growing
 * and rebuilding it a dozen times (OperatorContext.expectedRows). Known only where the inputs are
 * read in chunks of bytes (JSONL on workers); undefined elsewhere.
 */
export class RowsEstimate {
  private inputBytes = 0;
  private rows: number | undefined;

  /** The inputs' total size in bytes (plain files: a gzipped one has no useful size). */
  setInputBytes(bytes: number): void {
    this.inputBytes = bytes;
  }

  /** The first chunk read: `lines` lines in `bytes` bytes (later chunks change nothing). */
  sample(lines: number, bytes: number): void {
    if (this.rows !== undefined || this.inputBytes <= 0 || bytes <= 0 || lines <= 0) return;
    this.rows = Math.ceil((this.inputBytes / bytes) * lines);
  }

  get expected(): number | undefined {
    return this.rows;
  }
}
