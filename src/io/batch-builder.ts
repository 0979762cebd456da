import type { RawBatch, RawRecord, ReadRejection } from './raw-record.ts';

/**
 * Collects records into batches of exactly `batchSize` (the last one may be smaller), whatever
 * the size of the chunks or row groups they come from. Rejections ride along with the batch that
 * is open when they happen.
 */
export class BatchBuilder {
  private readonly batchSize: number;
  private records: RawRecord[] = [];
  private rejected: ReadRejection[] = [];
  private readonly ready: RawBatch[] = [];

  constructor(batchSize: number) {
    this.batchSize = batchSize;
  }

  add(record: RawRecord): void {
    this.records.push(record);
    if (this.records.length >= this.batchSize) {
      this.ready.push({ records: this.records, rejected: this.rejected });
      this.records = [];
      this.rejected = [];
    }
  }

  reject(rejection: ReadRejection): void {
    this.rejected.push(rejection);
  }

  /** Full batches completed so far (removes them). */
  takeReady(): RawBatch[] {
    if (this.ready.length === 0) return EMPTY;
    return this.ready.splice(0, this.ready.length);
  }

  /** Everything left at the end of the input: full batches, then the partial one if non-empty. */
  finish(): RawBatch[] {
    const out = this.ready.splice(0, this.ready.length);
    if (this.records.length > 0 || this.rejected.length > 0) {
      out.push({ records: this.records, rejected: this.rejected });
      this.records = [];
      this.rejected = [];
    }
    return out;
  }
}

const EMPTY: RawBatch[] = [];

/** A push parser: bytes in (in order), records and rejections out through its BatchBuilder. */
export interface PushParser {
  push(chunk: Uint8Array): void;
  end(): void;
}

/** Feed a byte stream to a push parser, yielding each batch as soon as it is full. */
export async function* drivePushParser(
  bytes: AsyncIterable<Uint8Array>,
  parser: PushParser,
  out: BatchBuilder,
): AsyncGenerator<RawBatch> {
  for await (const chunk of bytes) {
    parser.push(chunk);
    for (const batch of out.takeReady()) yield batch;
  }
  parser.end();
  for (const batch of out.finish()) yield batch;
}
