// A growing Arrow Utf8 column written byte by byte: the one-pass encoders of the tasks table
// (task-encoder.ts) and the experience table (experience-encoder.ts) build their text columns
// with it instead of an array of strings per column.
import * as arrow from 'apache-arrow';

const utf8Encoder = new TextEncoder();

/** Offsets, bytes, and a validity bitmap once a null arrives; rows past the hint grow both. */
export class Utf8Column {
  private bytes: Uint8Array;
  private offsets: Int32Array;
  private bitmap: Uint8Array | undefined;
  private nulls = 0;
  private row = 0;
  /** Where the current row's next byte goes. */
  pos = 0;

  constructor(rows: number, bytesHint: number) {
    this.offsets = new Int32Array(rows + 1);
    this.bytes = new Uint8Array(Math.max(64, bytesHint));
  }

  /** Room for `more` bytes at `pos`; the bytes to write into (they may have moved). */
  reserve(more: number): Uint8Array {
    if (this.pos + more > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + more));
      grown.set(this.bytes.subarray(0, this.pos));
      this.bytes = grown;
    }
    return this.bytes;
  }

  /** Close the current row (its bytes were written at `pos`). */
  end(): void {
    this.roomForRow();
    this.offsets[++this.row] = this.pos;
  }

  /** Offsets (and bitmap bits) for the current row. */
  private roomForRow(): void {
    if (this.row + 1 < this.offsets.length) return;
    const offsets = new Int32Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.offsets = offsets;
    if (this.bitmap) {
      const bitmap = new Uint8Array((offsets.length - 1 + 7) >> 3);
      bitmap.set(this.bitmap);
      this.bitmap = bitmap;
    }
  }

  /** Mark the current row valid (only needed once a null has started the bitmap). */
  markValid(): void {
    if (this.bitmap) {
      this.roomForRow();
      this.bitmap[this.row >> 3]! |= 1 << (this.row & 7);
    }
  }

  pushNull(): void {
    this.roomForRow();
    if (!this.bitmap) {
      // Every earlier row was valid.
      this.bitmap = new Uint8Array((this.offsets.length - 1 + 7) >> 3);
      for (let i = 0; i < this.row; i++) this.bitmap[i >> 3]! |= 1 << (i & 7);
    }
    this.nulls++;
    this.end();
  }

  /** A string (ASCII copied byte by byte), null for null/undefined, and any other value written empty. */
  push(v: unknown): void {
    if (v === null || v === undefined) {
      this.pushNull();
      return;
    }
    this.markValid();
    if (typeof v === 'string' && v.length > 0) {
      const n = v.length;
      const out = this.reserve(n * 3);
      const start = this.pos;
      let k = 0;
      for (; k < n; k++) {
        const c = v.charCodeAt(k);
        if (c >= 0x80) break;
        out[start + k] = c;
      }
      this.pos = k === n ? start + n : start + utf8Encoder.encodeInto(v, out.subarray(start)).written;
    }
    this.end();
  }

  /** The bytes written at [from, to) again as this row (a repeated value). */
  repeat(from: number, to: number): void {
    this.markValid();
    const out = this.reserve(to - from);
    out.copyWithin(this.pos, from, to);
    this.pos += to - from;
    this.end();
  }

  /**
   * The column as Arrow data. `copy`: its bytes in their own ArrayBuffer (LanceDB's IPC hand-off
   * of experience batches breaks on buffers shared with unused space).
   */
  data(copy: boolean): arrow.Data<arrow.Utf8> {
    return arrow.makeData({
      type: new arrow.Utf8(),
      length: this.row,
      nullCount: this.nulls,
      nullBitmap: this.nulls > 0 ? this.bitmap!.subarray(0, (this.row + 7) >> 3) : undefined,
      valueOffsets:
        this.offsets.length === this.row + 1 ? this.offsets : this.offsets.subarray(0, this.row + 1),
      data: copy ? this.bytes.slice(0, this.pos) : this.bytes.subarray(0, this.pos),
    });
  }
}
