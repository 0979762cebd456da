import { type Bool, type Data, type RecordBatch, RecordBatchStreamWriter, type Table } from 'apache-arrow';
import { BufferRegion, Message, RecordBatch as RecordBatchHeader } from 'apache-arrow/ipc/metadata/message';
import { VectorAssembler } from 'apache-arrow/visitor/vectorassembler';

/**
 * Arrow IPC bytes that other Arrow implementations accept, for tables holding all-null booleans.
 *
 * apache-arrow 18's IPC writer sends a Bool array whose values are all null without its values
 * bitmap (a 0-byte buffer). The Arrow format wants ceil(length / 8) bytes there, whatever the nulls;
 * arrow-rs (inside parquet-wasm and LanceDB) and pyarrow refuse such a batch ("Need at least 128
 * bytes for bitmap in buffers[0] in array of type Boolean"). So `winnow export` failed whenever a
 * record batch held a nullable boolean that was null in all its rows — a key of `info` absent from
 * 1,024 rows in a row, say. apache-arrow fixed it after 18 (apache/arrow-js#68), but LanceDB pins
 * apache-arrow to ≤ 18.1.0, so this writer sends a zero-filled bitmap instead, and is otherwise
 * apache-arrow's own stream writer.
 */

// The class's constructor is private in its typings only; `assemble` itself calls `new`.
const Assembler = VectorAssembler as unknown as new () => VectorAssembler;

/** apache-arrow's assembler, except that an all-null Bool array keeps a (zero) values bitmap. */
class BoolBitmapAssembler extends Assembler {
  override visitBool<T extends Bool>(data: Data<T>): this {
    super.visitBool(data);
    const bytes = (data.length + 7) >> 3;
    const last = this._buffers.length - 1;
    if (this._buffers[last]!.byteLength >= bytes) return this;
    // The buffer just added is the 0-byte placeholder at the end of the body: widen it in place.
    const region = this._bufferRegions[last]!;
    const padded = (bytes + 7) & ~7;
    this._buffers[last] = new Uint8Array(padded);
    this._bufferRegions[last] = new BufferRegion(region.offset, padded);
    this._byteLength = region.offset + padded;
    return this;
  }
}

/** apache-arrow's stream writer with the assembler above for record batches. */
class BoolBitmapStreamWriter extends RecordBatchStreamWriter {
  protected override _writeRecordBatch(batch: RecordBatch): this {
    const assembler = new BoolBitmapAssembler();
    assembler.visitMany(batch.data.children);
    const header = new RecordBatchHeader(batch.numRows, assembler.nodes, assembler.bufferRegions);
    const message = Message.from(header, assembler.byteLength);
    return this._writeDictionaries(batch)._writeMessage(message)._writeBodyBuffers(assembler.buffers);
  }
}

/** `tableToIPC(table, 'stream')`, with every Bool array's values bitmap present (see above). */
export function tableToIpcStream(table: Table): Uint8Array {
  return new BoolBitmapStreamWriter().writeAll(table).toUint8Array(true);
}
