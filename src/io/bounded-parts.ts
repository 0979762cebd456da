import { growHead, headOf, PAYLOAD_HEAD_BYTES } from './text-context.ts';

/** What a BoundedParts held: the whole value, or — past the limit — its size and first bytes. */
export type TakenParts = { overflow: false; bytes: Buffer } | { overflow: true; size: number; head: Buffer };

/**
 * The bytes of one record (a line, a CSV row, a JSON element) that spans chunks. Past `maxBytes`
 * it stops keeping them and only counts, holding the head for the rejection payload, so a huge
 * record never costs more than its head in memory. Shared by the JSONL, JSON and CSV readers.
 */
export class BoundedParts {
  private readonly maxBytes: number;
  private parts: Buffer[] = [];
  private size = 0;
  private overflowSize = -1;
  private overflowHead: Buffer = Buffer.alloc(0);

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Nothing held (neither bytes nor an overflowing record). */
  get empty(): boolean {
    return this.size === 0 && this.overflowSize < 0;
  }

  get overflowing(): boolean {
    return this.overflowSize >= 0;
  }

  keep(part: Buffer): void {
    if (this.overflowSize >= 0) {
      this.overflowSize += part.length;
      this.overflowHead = growHead(this.overflowHead, part);
      return;
    }
    if (this.size + part.length > this.maxBytes) {
      this.overflowHead = headOf([...this.parts, part], PAYLOAD_HEAD_BYTES);
      this.overflowSize = this.size + part.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  /** The first bytes held, for a rejection's payload. */
  head(): Buffer {
    return this.overflowSize >= 0 ? this.overflowHead : headOf(this.parts, PAYLOAD_HEAD_BYTES);
  }

  /** Hand over what is held and start empty. */
  take(): TakenParts {
    if (this.overflowSize >= 0) {
      const taken: TakenParts = { overflow: true, size: this.overflowSize, head: this.overflowHead };
      this.overflowSize = -1;
      this.overflowHead = Buffer.alloc(0);
      return taken;
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    return { overflow: false, bytes };
  }
}
