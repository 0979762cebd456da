import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { tableToIpcFile } from '../io/arrow-ipc.ts';
import { hasIpcBatches, ipcFileOf } from './ipc-file.ts';

/** The native handle of a local LanceDB table (`LocalTable.inner` in @lancedb/lancedb 0.39). */
interface NativeAppend {
  add(buf: Buffer, mode: string): Promise<{ version: number }>;
}

function nativeOf(table: Table): NativeAppend | null {
  const inner = (table as unknown as { inner?: unknown }).inner;
  if (typeof inner !== 'object' || inner === null) return null;
  return typeof (inner as { add?: unknown }).add === 'function' ? (inner as NativeAppend) : null;
}

/** Whether `appendArrow` takes the direct path for this table (tests pin it to the installed LanceDB). */
export function appendsDirectly(table: Table): boolean {
  return nativeOf(table) !== null;
}

/**
 * Append an Arrow table built with `table`'s own schema in one commit; returns the new version.
 *
 * Why not `table.add`: for Arrow input it first reads the table's schema back from the native side
 * (a round trip plus an IPC decode) and sanitizes it on every call, then serializes the data to an
 * Arrow IPC file and hands that to the native `add`. On a 256-row commit the schema read alone was
 * ~0.8–0.9 ms of ~8.7 (docs/performance.md). Our batches already carry the table's schema, so we
 * serialize them ourselves and call the same native `add`: same bytes, same commit, same checks
 * (Lance refuses an append whose schema differs from the table's). Where the native handle is not
 * there (another LanceDB release or a remote table), `table.add` is used.
 */
export async function appendArrow(table: Table, data: arrow.Table): Promise<number> {
  const native = nativeOf(table);
  if (native === null) return (await table.add(data)).version;
  // Our writer, not apache-arrow's: an all-null boolean needs its bitmap for Lance (io/arrow-ipc.ts).
  const ipc = tableToIpcFile(data);
  const buf = Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength);
  return (await native.add(buf, 'append')).version;
}

/**
 * Append `data` in one commit; returns the new version. `ownSchema`: `data` was built with the
 * table's own schema (the typed task layout), so its IPC file goes to the native `add` as
 * `appendArrow` does — record batches that still have their IPC bytes (store/ipc-file.ts: a queued
 * ingest's rows, as a pipeline worker encoded them) copied as they are instead of re-encoded. This
 * also saves `table.add`'s schema read and its second copy of the file (~0.25 CPU s per 1M rows of
 * an in-process ingest). Otherwise, or without the native handle, it is `table.add`, which fits the
 * data to an older table's schema.
 */
export async function appendTable(table: Table, data: arrow.Table, ownSchema: boolean): Promise<number> {
  const native = ownSchema ? nativeOf(table) : null;
  if (native === null) return (await table.add(data)).version;
  if (!hasIpcBatches(data)) return appendArrow(table, data);
  return (await native.add(ipcFileOf(data), 'append')).version;
}
