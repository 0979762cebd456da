/** Settings every text-format parser needs. */
export interface TextReadContext {
  /** Absolute path (or a label such as `<stdin>`), copied into every record's `source.file`. */
  file: string;
  batchSize: number;
  /** A line (or CSV record, or JSON array element) longer than this many bytes is rejected unread. */
  maxLineBytes: number;
  /** JSON values nested deeper than this are rejected (see json-depth.ts). */
  maxDepth: number;
}

/** The head of an oversized row, for its rejection payload: enough to recognise it, never the whole thing. */
export const PAYLOAD_HEAD_BYTES = 4096;

/** Concatenate the first `limit` bytes of `parts`. */
export function headOf(parts: readonly Buffer[], limit: number): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  for (const p of parts) {
    if (n >= limit) break;
    const take = p.subarray(0, limit - n);
    out.push(take);
    n += take.length;
  }
  return Buffer.concat(out, n);
}

export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Payload for a row too big to keep: its head, and how much was left out. */
export function oversizedPayload(head: Buffer, totalBytes: number): string {
  const shown = head.subarray(0, PAYLOAD_HEAD_BYTES);
  return `${shown.toString('utf8')}… [${totalBytes - shown.length} more bytes]`;
}

/** Top up an oversized row's kept head from the next part, up to PAYLOAD_HEAD_BYTES. */
export function growHead(head: Buffer, part: Buffer): Buffer {
  const need = PAYLOAD_HEAD_BYTES - head.length;
  return need <= 0 ? head : Buffer.concat([head, part.subarray(0, need)]);
}
