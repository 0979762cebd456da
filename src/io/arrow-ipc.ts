import { createRequire } from 'node:module';
import * as esmArrow from 'apache-arrow';
import * as esmMessage from 'apache-arrow/ipc/metadata/message';
import * as esmAssembler from 'apache-arrow/visitor/vectorassembler';

/**
 * Arrow IPC bytes that other Arrow implementations accept, for tables holding all-null booleans.
 *
 * apache-arrow 18's IPC writer sends a Bool array whose values are all null without its values
 * bitmap (a 0-byte buffer). The Arrow format wants ceil(length / 8) bytes there, whatever the nulls;
 * arrow-rs (inside parquet-wasm and LanceDB) and pyarrow refuse such a batch ("Need at least 128
 * bytes for bitmap in buffers[0] in array of type Boolean"). So `winnow export` failed whenever a
 * record batch held a nullable boolean that was null in all its rows — a key of `info` absent from
 * 1,024 rows in a row, say — and a LanceDB append of such a batch failed the same way. apache-arrow
 * fixed it after 18 (apache/arrow-js#68), but LanceDB pins apache-arrow to ≤ 18.1.0.
 *
 * The fix: apache-arrow's assembler (the part of its writers that lays out buffers) keeps a
 * zero-filled bitmap for such an array. It is installed on the assembler of BOTH builds of
 * apache-arrow, because both write IPC that leaves apache-arrow: our ESM code loads the ESM build,
 * while LanceDB (a CommonJS package) loads the CommonJS build and serializes every `add`,
 * `mergeInsert(…).execute` and `createTable` with it — a writer we cannot hand a subclass to. Their
 * classes differ (arrow-codec.ts), so one patch per build; it only widens a buffer that is too
 * short, so a fixed apache-arrow release leaves it with nothing to do.
 *
 * Every IPC write meant for another Arrow implementation goes through `tableToIpcStream` /
 * `tableToIpcFile` below, which also load this module (and so the fix) before writing:
 * - io/parquet-writer.ts, trainer/export-trainer.ts: parquet-wasm (arrow-rs) reads the stream;
 * - buffer/lance-append.ts: the buffer's direct append hands an IPC file to LanceDB (arrow-rs);
 * - trainer/external/batch.ts: the batch file an external (Python, pyarrow) trainer reads;
 * - serve/arrow-batch.ts: `winnow serve`'s Arrow batches, read by HTTP clients (pyarrow);
 * - buffer/upkeep-runner.ts: fold rows sent to the upkeep process (JS reads them back; the child
 *   then hands them to LanceDB, whose writer is fixed because that process loads this module too);
 * - buffer/arrow-codec.ts: the CommonJS→ESM copy of a LanceDB result (JS to JS; routed to keep one
 *   writer for both builds).
 * store/connection.ts and buffer/upkeep-process.ts call `commonJsArrow` for LanceDB's own writes.
 */

type ArrowBuild = typeof esmArrow;
type MessageModule = typeof esmMessage;

/** The assembler's protected state the fix touches (apache-arrow 18's VectorAssembler). */
interface AssemblerState {
  _byteLength: number;
  _buffers: ArrayBufferView[];
  _bufferRegions: { offset: number; length: number }[];
}
type VisitBool = (this: AssemblerState, data: esmArrow.Data<esmArrow.Bool>) => unknown;

const FIXED = Symbol.for('winnow.arrow-ipc.bool-bitmap');

/** After apache-arrow's own `visitBool`: widen a too-short values bitmap (the 0-byte placeholder). */
function widenBoolBitmap(state: AssemblerState, data: esmArrow.Data, message: MessageModule): void {
  const bytes = (data.length + 7) >> 3;
  const last = state._buffers.length - 1;
  if (last < 0 || state._buffers[last]!.byteLength >= bytes) return;
  // The buffer just added is the last one of the body so far: widen it in place, 8-byte aligned.
  const region = state._bufferRegions[last]!;
  const padded = (bytes + 7) & ~7;
  state._buffers[last] = new Uint8Array(padded);
  state._bufferRegions[last] = new message.BufferRegion(region.offset, padded);
  state._byteLength = region.offset + padded;
}

/** Install the fix on one build's assembler (once per build, whoever loads this module). */
function fixAssembler(assembler: { prototype: object }, message: MessageModule): void {
  const proto = assembler.prototype as { visitBool: VisitBool; [FIXED]?: true };
  if (proto[FIXED]) return;
  const original = proto.visitBool;
  proto.visitBool = function visitBool(data) {
    const out = original.call(this, data);
    widenBoolBitmap(this, data, message);
    return out;
  };
  proto[FIXED] = true;
}

const requireCjs = createRequire(import.meta.url);
fixAssembler(esmAssembler.VectorAssembler, esmMessage);
let cjsArrow: ArrowBuild | undefined;

/**
 * apache-arrow's CommonJS build (LanceDB's), with the fix installed on it. Loaded on first use,
 * not with this module: a pipeline worker only writes ESM tables, and loading the second build
 * (~130 modules) cost each worker start ~0.1 CPU s. Whatever opens a LanceDB connection calls it
 * first (store/connection.ts, buffer/storage/upkeep-process.ts), before any write.
 */
export function commonJsArrow(): ArrowBuild {
  if (cjsArrow === undefined) {
    cjsArrow = requireCjs('apache-arrow') as ArrowBuild;
    fixAssembler(
      (requireCjs('apache-arrow/visitor/vectorassembler') as typeof esmAssembler).VectorAssembler,
      requireCjs('apache-arrow/ipc/metadata/message') as MessageModule,
    );
  }
  return cjsArrow;
}

/** The build whose classes `table` is made of (LanceDB returns CommonJS-build tables). */
function buildOf(table: esmArrow.Table): ArrowBuild {
  return table instanceof esmArrow.Table ? esmArrow : commonJsArrow();
}

/** `tableToIPC(table, 'stream')`, with every Bool array's values bitmap present (see above). */
export function tableToIpcStream(table: esmArrow.Table): Uint8Array {
  return buildOf(table).tableToIPC(table, 'stream');
}

/** `tableToIPC(table, 'file')`, with every Bool array's values bitmap present (see above). */
export function tableToIpcFile(table: esmArrow.Table): Uint8Array {
  return buildOf(table).tableToIPC(table, 'file');
}

/** Whether the fix is installed on both builds' assemblers (tests). */
export function boolBitmapFixInstalled(): boolean {
  const cjs = requireCjs('apache-arrow/visitor/vectorassembler') as typeof esmAssembler;
  const fixed = (c: { prototype: object }) => (c.prototype as { [FIXED]?: true })[FIXED] === true;
  return fixed(esmAssembler.VectorAssembler) && fixed(cjs.VectorAssembler);
}
