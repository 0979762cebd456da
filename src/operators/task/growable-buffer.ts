/**
 * Memory for an index that only grows, grown in place: a resizable ArrayBuffer reserves address
 * space up front and commits pages as it is resized, so growing copies nothing and never holds an
 * old and a new array at once (at 10M keys a copied 80 MB table briefly took 200 MB). Pages past
 * what was written are never touched, so resizing ahead costs no resident memory.
 * Where the reservation is refused (a tight `ulimit -v`), it falls back to copying by half.
 */

/** ES2024's resizable ArrayBuffer (this project's TypeScript lib is ES2023). */
type Resizable = ArrayBuffer & { resize(byteLength: number): void; readonly maxByteLength: number };
const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => Resizable;

export class GrowableBuffer {
  private buffer: ArrayBuffer;
  private readonly resizable: boolean;
  /** The most it may ever hold: reserved address space, not memory. */
  private readonly maxBytes: number;

  constructor(initialBytes: number, maxBytes: number) {
    this.maxBytes = maxBytes;
    let buffer: ArrayBuffer;
    try {
      buffer = new ResizableArrayBuffer(initialBytes, { maxByteLength: maxBytes });
    } catch {
      buffer = new ArrayBuffer(initialBytes);
    }
    this.buffer = buffer;
    this.resizable = (buffer as { resizable?: boolean }).resizable === true;
  }

  get byteLength(): number {
    return this.buffer.byteLength;
  }

  /** The memory itself (view it again after `grow`). */
  get memory(): ArrayBuffer {
    return this.buffer;
  }

  /** Make it at least `byteLength` long (by at least a quarter more); true when it grew. */
  grow(byteLength: number): boolean {
    const now = this.buffer.byteLength;
    if (byteLength <= now) return false;
    if (byteLength > this.maxBytes) throw new Error(`an index outgrew its ${this.maxBytes}-byte limit`);
    // Multiples of 8 bytes, so any typed array views it whole.
    const size = Math.min(this.maxBytes, Math.ceil(Math.max(byteLength, now * 1.25) / 8) * 8);
    if (this.resizable) (this.buffer as Resizable).resize(size);
    else {
      const more = new ArrayBuffer(
        Math.min(this.maxBytes, Math.ceil(Math.max(byteLength, now * 1.5) / 8) * 8),
      );
      new Uint8Array(more).set(new Uint8Array(this.buffer));
      this.buffer = more;
    }
    return true;
  }
}
