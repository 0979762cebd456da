import * as arrow from 'apache-arrow';
import { taskRejection } from '../core/rejected.ts';
import { tableToIpcStream } from '../io/arrow-ipc.ts';
import { IpcBytesError, tableWithIpc } from '../store/ipc-file.ts';
import { decodeTasks, TASK_SCHEMA } from '../store/task-table.ts';

/**
 * The bytes a pipeline worker stores for a shard whose rows it encoded: the cleaned rows in the task
 * table's Arrow layout, in two sections — the rows its own exact dedup over the shard kept, then the
 * rows it set aside as repeats within the shard — then the rejected records of the rows set aside
 * (where each was read, the row as payload: the coordinator drops almost all of them and records
 * them without decoding the rows), and beside them, one value per row of the shard in input order,
 * what the coordinator needs to land them (exact_dedup's key hashes, which section the row is in; the
 * report's measures). All four are Arrow IPC streams in one Redis value:
 *
 *   "WNWSHRD2" | 4 × section bytes (u32 LE) | kept IPC | aside IPC | aside records IPC | sidecar IPC
 *
 * (the head is 24 bytes, so the Arrow bodies stay 8-byte aligned: apache-arrow copies every body
 * that is not, which doubled the coordinator's memory traffic per shard in a first try).
 *
 * The worker's dedup sees only its shard, so the coordinator still decides every row (across all
 * shards, in order); it agrees with the worker for almost every row, and then the kept section's
 * record batches go to LanceDB as the bytes they came in (store/ipc-file.ts). Binary end to end: the
 * coordinator reads typed arrays and never parses a JSON array per row; `decodeShardFrame` checks
 * the shape once (magic, lengths, both sections' schema, the sidecar's columns, types and row
 * counts). Ids are read from the rows' own `id` column (`utf8Values`), a batch at a time.
 */

/** The sidecar's column values. */
type Numbers = Float64Array | Uint32Array | Int32Array | Uint8Array;

const MAGIC = Buffer.from('WNWSHRD2', 'latin1');
const SECTIONS = 4;
const HEAD = MAGIC.length + 4 * SECTIONS;

/** Per-row values beside the rows, in row order. */
export interface ShardSidecar {
  /**
   * exact_dedup's key hash and check of each row's text, and `aside`: 1 where the row is in the
   * frame's second section (the worker's dedup set it aside), 0 where it is in the first; null when
   * the chain has no exact_dedup (then every row is in the first section).
   */
  exact: { keys: Float64Array; checks: Uint32Array; aside: Uint8Array } | null;
  /** The run report's measures of each row; null when the run writes no report. */
  measures: ShardRowMeasures | null;
}

export interface ShardRowMeasures {
  chars: Int32Array;
  words: Int32Array;
  /** `features.difficulty`, NaN when it is not a finite number. */
  difficulty: Float64Array;
  /** Index into the shard's taskset names (carried in the job's result). */
  taskset: Int32Array;
}

/** The sidecar's columns: name, Arrow type, and the typed array a worker fills. */
const EXACT_COLUMNS = [
  ['key', new arrow.Float64()],
  ['check', new arrow.Uint32()],
  ['aside', new arrow.Uint8()],
] as const;
const MEASURE_COLUMNS = [
  ['chars', new arrow.Int32()],
  ['words', new arrow.Int32()],
  ['difficulty', new arrow.Float64()],
  ['taskset', new arrow.Int32()],
] as const;

/** The rejected records of the rows set aside, in their order (`taskRejection` less step and reason). */
export interface AsideRecords {
  file: string[];
  row: Int32Array;
  payload: string[];
}

const RECORD_COLUMNS = [
  ['file', new arrow.Utf8()],
  ['row', new arrow.Int32()],
  ['payload', new arrow.Utf8()],
] as const;

/** The records section of rows set aside (a worker builds it from the rows as the coordinator reads them). */
export function asideRecordsTable(rows: arrow.Table): arrow.Table {
  const records = decodeTasks(rows).map((t) => taskRejection('', t, ''));
  return new arrow.Table({
    file: arrow.vectorFromArray(
      records.map((r) => r.file ?? ''),
      new arrow.Utf8(),
    ),
    row: arrow.makeVector(Int32Array.from(records, (r) => r.row ?? -1)),
    payload: arrow.vectorFromArray(
      records.map((r) => r.payload ?? ''),
      new arrow.Utf8(),
    ),
  });
}

/**
 * The frame for a shard's rows in the task layout: `kept` (the first section) and `aside` (the
 * second; rows `side.exact.aside` marks) with its records (`asideRecordsTable`), and their sidecar,
 * one value per row in input order.
 */
export function encodeShardFrame(
  kept: arrow.Table,
  aside: arrow.Table,
  side: ShardSidecar,
  records: arrow.Table = asideRecordsTable(aside),
): Buffer {
  const columns: Record<string, Numbers> = {};
  if (side.exact)
    Object.assign(columns, { key: side.exact.keys, check: side.exact.checks, aside: side.exact.aside });
  if (side.measures) Object.assign(columns, side.measures);
  const vectors: Record<string, arrow.Vector> = {};
  for (const [name, values] of Object.entries(columns)) vectors[name] = arrow.makeVector(values);
  // A table with no columns has no rows: the count is checked against the rows' instead.
  const sidecar = Object.keys(vectors).length > 0 ? new arrow.Table(vectors) : new arrow.Table();
  return frameOfSections([kept, aside, records, sidecar].map(tableToIpcStream));
}

/** The frame around its sections' IPC bytes, in order (kept, aside, records, sidecar), checked by nothing. */
export function frameOfSections(parts: readonly Uint8Array[]): Buffer {
  const out = Buffer.alloc(HEAD + parts.reduce((n, p) => n + p.byteLength, 0));
  MAGIC.copy(out, 0);
  let at = HEAD;
  parts.forEach((p, i) => {
    out.writeUInt32LE(p.byteLength, MAGIC.length + 4 * i);
    out.set(p, at);
    at += p.byteLength;
  });
  return out;
}

/** What the job's result says the frame holds (the shape `decodeShardFrame` checks). */
export interface FrameShape {
  rows: number;
  exact: boolean;
  /** Taskset names the measures index into; null when the frame carries no measures. */
  tasksets: readonly string[] | null;
}

export interface DecodedShard {
  /**
   * The first section's rows, each record batch still with its IPC bytes (store/ipc-file.ts); their
   * ids are in the `id` column (`utf8Values`).
   */
  rows: arrow.Table;
  /** The second section's rows: those the worker's dedup set aside. */
  aside: arrow.Table;
  asideRecords: AsideRecords;
  side: ShardSidecar;
  /** Rows of the first section before row `i` of the shard, for `i` in 0..rows (so row `i` is its section's row `keptBefore[i]` or `i − keptBefore[i]`). */
  keptBefore: Int32Array;
}

/** A frame that is not what its job's result says it is: the message says what is wrong, in a few words. */
export class ShardFrameError extends Error {
  override name = 'ShardFrameError';
}

/** Read and check a frame (throws ShardFrameError naming the first thing that does not fit). */
export function decodeShardFrame(bytes: Uint8Array, shape: FrameShape): DecodedShard {
  if (bytes.byteLength < HEAD || !MAGIC.equals(bytes.subarray(0, MAGIC.length)))
    throw new ShardFrameError('not a shard frame (no WNWSHRD2 header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sizes = Array.from({ length: SECTIONS }, (_, i) => view.getUint32(MAGIC.length + 4 * i, true));
  if (HEAD + sizes.reduce((n, x) => n + x, 0) !== bytes.byteLength)
    throw new ShardFrameError(
      `its lengths (${sizes.join(' + ')} bytes) do not add up to its ${bytes.byteLength} bytes`,
    );
  const section = (k: number) => {
    const from = HEAD + sizes.slice(0, k).reduce((n, x) => n + x, 0);
    return bytes.subarray(from, from + sizes[k]!);
  };
  const rows = readIpc(section(0), 'kept rows', true);
  const aside = readIpc(section(1), 'rows set aside', false);
  const records = readIpc(section(2), 'records of the rows set aside', false);
  const sidecar = readIpc(section(3), 'sidecar', false);
  checkRows(rows, 'kept rows');
  checkRows(aside, 'rows set aside');
  if (rows.numRows + aside.numRows !== shape.rows)
    throw new ShardFrameError(
      `it holds ${rows.numRows} + ${aside.numRows} row(s), its result says ${shape.rows}`,
    );
  const values = sidecarValues(sidecar, shape);
  const measures = shape.tasksets ? measuresOf(values, shape.tasksets.length) : null;
  const exact = shape.exact
    ? {
        keys: values.key as Float64Array,
        checks: values.check as Uint32Array,
        aside: values.aside as Uint8Array,
      }
    : null;
  const keptBefore = keptBeforeOf(exact?.aside ?? null, shape.rows, aside.numRows);
  return {
    rows,
    aside,
    asideRecords: asideRecordsOf(records, aside.numRows),
    side: { exact, measures },
    keptBefore,
  };
}

function readIpc(bytes: Uint8Array, what: string, withBytes: boolean): arrow.Table {
  try {
    return withBytes ? tableWithIpc(bytes) : arrow.tableFromIPC(bytes);
  } catch (err) {
    const why = err instanceof IpcBytesError ? err.message : (err as Error).message;
    throw new ShardFrameError(`its ${what} are not an Arrow IPC stream (${why})`);
  }
}

/** The sidecar's columns, checked against what the result says the frame holds. */
function sidecarValues(sidecar: arrow.Table, shape: FrameShape): Record<string, Numbers> {
  const expected = [...(shape.exact ? EXACT_COLUMNS : []), ...(shape.tasksets ? MEASURE_COLUMNS : [])];
  const names = sidecar.schema.fields.map((f) => f.name).join(',');
  if (names !== expected.map(([n]) => n).join(','))
    throw new ShardFrameError(
      `sidecar columns are [${names}], expected [${expected.map(([n]) => n).join(',')}]`,
    );
  if (expected.length > 0 && sidecar.numRows !== shape.rows)
    throw new ShardFrameError(`sidecar has ${sidecar.numRows} row(s), the rows ${shape.rows}`);
  const values: Record<string, Numbers> = {};
  for (const [name, type] of expected) {
    const field = sidecar.schema.fields.find((f) => f.name === name)!;
    if (String(field.type) !== String(type) || sidecar.getChild(name)!.nullCount > 0)
      throw new ShardFrameError(`sidecar column '${name}' is ${field.type}, expected ${type} without nulls`);
    values[name] = sidecar.getChild(name)!.toArray() as Numbers;
  }
  return values;
}

/** The records section's values, checked: its columns and types, one row per row set aside. */
function asideRecordsOf(records: arrow.Table, rows: number): AsideRecords {
  const got = records.schema.fields.map((f) => `${f.name}: ${f.type}`).join(', ');
  const want = RECORD_COLUMNS.map(([n, t]) => `${n}: ${t}`).join(', ');
  if (got !== want)
    throw new ShardFrameError(`its records of the rows set aside are [${got}], expected [${want}]`);
  if (records.numRows !== rows)
    throw new ShardFrameError(`it holds ${records.numRows} record(s) of its ${rows} row(s) set aside`);
  if (RECORD_COLUMNS.some(([n]) => records.getChild(n)!.nullCount > 0))
    throw new ShardFrameError('a record of its rows set aside has a null');
  return {
    file: utf8Values(records.getChild('file')!),
    row: records.getChild('row')!.toArray() as Int32Array,
    payload: utf8Values(records.getChild('payload')!),
  };
}

/** `DecodedShard.keptBefore`, checking that the `aside` marks are 0 or 1 and as many 1s as rows set aside. */
function keptBeforeOf(aside: Uint8Array | null, rows: number, asideRows: number): Int32Array {
  const out = new Int32Array(rows + 1);
  let kept = 0;
  for (let i = 0; i < rows; i++) {
    const mark = aside ? aside[i]! : 0;
    if (mark > 1) throw new ShardFrameError(`row ${i}'s aside mark is ${mark}, expected 0 or 1`);
    out[i] = kept;
    kept += 1 - mark;
  }
  out[rows] = kept;
  if (rows - kept !== asideRows)
    throw new ShardFrameError(`its sidecar marks ${rows - kept} row(s) aside, the frame holds ${asideRows}`);
  return out;
}

/** A section's rows must be in the task table's layout, every id set. */
function checkRows(rows: arrow.Table, what: string): void {
  const got = rows.schema.fields.map((f) => `${f.name}: ${f.type}`);
  const want = TASK_SCHEMA.fields.map((f) => `${f.name}: ${f.type}`);
  const diff = want.findIndex((w, i) => got[i] !== w);
  if (diff >= 0 || got.length !== want.length)
    throw new ShardFrameError(
      `its ${what} are not in the task table's layout (column ${diff >= 0 ? diff + 1 : want.length + 1}: ${got[diff >= 0 ? diff : want.length] ?? 'missing'}, expected ${want[diff] ?? 'none'})`,
    );
  if (rows.getChild('id')!.nullCount > 0) throw new ShardFrameError(`a row of its ${what} has no id`);
}

function measuresOf(values: Record<string, Numbers>, tasksets: number): ShardRowMeasures {
  const taskset = values.taskset as Int32Array;
  for (let i = 0; i < taskset.length; i++)
    if (taskset[i]! < 0 || taskset[i]! >= tasksets)
      throw new ShardFrameError(
        `row ${i}'s taskset index ${taskset[i]} names none of its ${tasksets} taskset(s)`,
      );
  return {
    chars: values.chars as Int32Array,
    words: values.words as Int32Array,
    difficulty: values.difficulty as Float64Array,
    taskset,
  };
}

const utf8 = new TextDecoder();

/**
 * The strings of a Utf8 column. An ASCII column (almost every id) is decoded once as one string and
 * cut at its offsets, which are then character offsets too; anything else value by value.
 */
export function utf8Values(vector: arrow.Vector): string[] {
  const out: string[] = [];
  for (const data of vector.data) {
    // apache-arrow slices a variable-width column's offsets with it (its values buffer stays whole).
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    const first = offsets[0]!;
    const last = offsets[data.length]!;
    let ascii = true;
    for (let i = first; i < last; i++)
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    if (ascii) {
      const all = Buffer.from(bytes.buffer, bytes.byteOffset + first, last - first).toString('latin1');
      for (let i = 0; i < data.length; i++) out.push(all.slice(offsets[i]! - first, offsets[i + 1]! - first));
    } else
      for (let i = 0; i < data.length; i++)
        out.push(utf8.decode(bytes.subarray(offsets[i]!, offsets[i + 1]!)));
  }
  return out;
}
