import * as arrow from 'apache-arrow';
import { FileBlock, Footer } from 'apache-arrow/ipc/metadata/file';
import { Message } from 'apache-arrow/ipc/metadata/message';
import { tableToIpcStream } from '../io/arrow-ipc.ts';

/**
 * Arrow IPC at the level of its messages, so that record batches another process encoded can be
 * committed to LanceDB as the bytes they arrived in: no decode into apache-arrow's objects, no copy of
 * the kept rows, no second IPC writer pass (docs/scale-out.md, "Byte-level commits").
 *
 * An encapsulated message is `0xFFFFFFFF | metadata length (i32) | Message flatbuffer (padded) |
 * body`; an IPC file is `ARROW1\0\0 | schema message | record batch messages | EOS | Footer |
 * footer length (i32) | ARROW1`, the footer listing where each record batch message starts.
 */

/** One message of an IPC stream: where it starts in the stream's bytes, its sizes, its kind. */
export interface IpcMessageSpan {
  offset: number;
  /** Prefix, metadata and its padding (the file footer's `metaDataLength`). */
  metaLength: number;
  bodyLength: number;
  header: arrow.MessageHeader;
  /** Rows of a record batch (0 for other messages). */
  rows: number;
}

/** Thrown for bytes that are not a well-formed IPC stream (the message says where). */
export class IpcBytesError extends Error {
  override name = 'IpcBytesError';
}

/** The messages of an IPC stream, up to its end-of-stream marker or its last byte. */
export function ipcMessages(bytes: Uint8Array): IpcMessageSpan[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: IpcMessageSpan[] = [];
  let at = 0;
  while (at + 4 <= bytes.byteLength) {
    let prefix = 4;
    let length = view.getInt32(at, true);
    if (length === -1) {
      if (at + 8 > bytes.byteLength) throw new IpcBytesError(`message ${out.length} is cut short`);
      length = view.getInt32(at + 4, true);
      prefix = 8;
    }
    if (length === 0) break;
    const end = at + prefix + length;
    if (length < 0 || end > bytes.byteLength)
      throw new IpcBytesError(`message ${out.length}'s metadata runs past the end (${length} bytes)`);
    let message: Message;
    try {
      message = Message.decode(bytes.subarray(at + prefix, end));
    } catch (err) {
      throw new IpcBytesError(`message ${out.length}'s metadata cannot be read (${(err as Error).message})`);
    }
    const bodyLength = Number(message.bodyLength);
    if (end + bodyLength > bytes.byteLength)
      throw new IpcBytesError(`message ${out.length}'s body runs past the end (${bodyLength} bytes)`);
    const header = message.headerType;
    const rows =
      header === arrow.MessageHeader.RecordBatch
        ? Number((message.header() as { length: number }).length)
        : 0;
    out.push({ offset: at, metaLength: prefix + length, bodyLength, header, rows });
    at = end + bodyLength;
  }
  return out;
}

/**
 * A record batch that still has the bytes it was read from: its encapsulated IPC message (metadata
 * and body), to be written as it is. Any change to a batch makes a new `RecordBatch` (apache-arrow's
 * batches are immutable), so these bytes always match the batch's data.
 */
export class IpcRecordBatch extends arrow.RecordBatch {
  readonly ipc: Uint8Array;
  constructor(batch: arrow.RecordBatch, ipc: Uint8Array) {
    super(batch.schema, batch.data);
    this.ipc = ipc;
  }
}

/**
 * The record batches of an IPC stream with the bytes of their messages (`IpcRecordBatch`), read by
 * apache-arrow (which checks them and gives the values as views over `bytes`). Throws IpcBytesError
 * when the stream holds dictionaries, or its record batch messages do not match what apache-arrow read.
 */
export function tableWithIpc(bytes: Uint8Array): arrow.Table {
  const spans = ipcMessages(bytes);
  if (spans.some((s) => s.header === arrow.MessageHeader.DictionaryBatch))
    throw new IpcBytesError('it holds dictionary batches');
  const table = arrow.tableFromIPC(bytes);
  const batchSpans = spans.filter((s) => s.header === arrow.MessageHeader.RecordBatch);
  if (batchSpans.length !== table.batches.length)
    throw new IpcBytesError(
      `it holds ${batchSpans.length} record batch message(s), apache-arrow read ${table.batches.length}`,
    );
  const batches = table.batches.map((batch, i) => {
    const s = batchSpans[i]!;
    if (s.rows !== batch.numRows)
      throw new IpcBytesError(`record batch ${i} says ${s.rows} row(s), apache-arrow read ${batch.numRows}`);
    return new IpcRecordBatch(batch, bytes.subarray(s.offset, s.offset + s.metaLength + s.bodyLength));
  });
  return new arrow.Table(table.schema, batches);
}

/** Whether any batch of `table` still has its IPC bytes (so `ipcFileOf` copies rather than encodes it). */
export function hasIpcBatches(table: arrow.Table): boolean {
  return table.batches.some((b) => b instanceof IpcRecordBatch);
}

const MAGIC = new TextEncoder().encode('ARROW1');
const EOS = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** The messages (schema first, then record batches) of a batch apache-arrow encodes (our writer: io/arrow-ipc.ts). */
function encodedMessages(schema: arrow.Schema, batches: arrow.RecordBatch[]): Uint8Array[] {
  // Under the table's own schema: apache-arrow's writer skips a batch whose schema object compares unequal.
  const own = batches.map((b) => (b.schema === schema ? b : new arrow.RecordBatch(schema, b.data)));
  const bytes = tableToIpcStream(new arrow.Table(schema, own));
  return ipcMessages(bytes).map((s) => bytes.subarray(s.offset, s.offset + s.metaLength + s.bodyLength));
}

/**
 * `table` as an Arrow IPC file, in one buffer: batches that still have their IPC bytes are copied as
 * they are, the others encoded by apache-arrow. Equal, batch for batch, to what apache-arrow's file
 * writer makes of `table` (the tests read it back with apache-arrow and pyarrow).
 */
export function ipcFileOf(table: arrow.Table): Buffer {
  const encode = table.batches.filter((b) => !(b instanceof IpcRecordBatch));
  const encoded = encodedMessages(table.schema, encode);
  const schemaMessage = encoded[0]!;
  let next = 1;
  const messages = table.batches.map((b) => (b instanceof IpcRecordBatch ? b.ipc : encoded[next++]!));
  const blocks: FileBlock[] = [];
  let at = 8 + schemaMessage.byteLength;
  for (const m of messages) {
    const view = new DataView(m.buffer, m.byteOffset, m.byteLength);
    const meta = view.getInt32(0, true) === -1 ? 8 + view.getInt32(4, true) : 4 + view.getInt32(0, true);
    blocks.push(new FileBlock(meta, m.byteLength - meta, at));
    at += m.byteLength;
  }
  const footer = Footer.encode(new Footer(table.schema, arrow.MetadataVersion.V5, blocks, []));
  const out = Buffer.allocUnsafe(at + EOS.byteLength + footer.byteLength + 4 + MAGIC.byteLength);
  out.set(MAGIC, 0);
  out.fill(0, MAGIC.byteLength, 8);
  out.set(schemaMessage, 8);
  let pos = 8 + schemaMessage.byteLength;
  for (const m of messages) {
    out.set(m, pos);
    pos += m.byteLength;
  }
  out.set(EOS, pos);
  pos += EOS.byteLength;
  out.set(footer, pos);
  pos += footer.byteLength;
  out.writeInt32LE(footer.byteLength, pos);
  out.set(MAGIC, pos + 4);
  return out;
}
