import * as arrow from 'apache-arrow';
import { tableToIpcStream } from '../io/arrow-ipc.ts';
import { TASK_SCHEMA } from '../store/task-table.ts';

/**
 * The bytes a pipeline worker stores for a shard whose rows it encoded: the cleaned rows in the task
 * table's Arrow layout, and beside them, one value per row, what the coordinator needs to land them
 * (exact_dedup's key hashes; the report's measures). Both are Arrow IPC streams in one Redis value:
 *
 *   "WNWSHRD1" | rows bytes (u32 LE) | sidecar bytes (u32 LE) | rows IPC | sidecar IPC
 *
 * Binary end to end: the coordinator reads typed arrays and never parses a JSON array per row, nor
 * checks one element at a time; `decodeShardFrame` checks the shape once (magic, lengths, the rows'
 * schema, the sidecar's columns, types and row counts). Ids are read from the rows' own `id` column
 * (`utf8Values`), a batch at a time.
 */

/** The sidecar's column values. */
type Numbers = Float64Array | Uint32Array | Int32Array;

const MAGIC = Buffer.from('WNWSHRD1', 'latin1');
const HEAD = MAGIC.length + 8;

/** Per-row values beside the rows, in row order. */
export interface ShardSidecar {
  /** exact_dedup's key hash and check of each row's text; null when the chain has no exact_dedup. */
  exact: { keys: Float64Array; checks: Uint32Array } | null;
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
] as const;
const MEASURE_COLUMNS = [
  ['chars', new arrow.Int32()],
  ['words', new arrow.Int32()],
  ['difficulty', new arrow.Float64()],
  ['taskset', new arrow.Int32()],
] as const;

/** The frame for `rows` (one Arrow table in the task layout) and their sidecar. */
export function encodeShardFrame(rows: arrow.Table, side: ShardSidecar): Buffer {
  const columns: Record<string, Numbers> = {};
  if (side.exact) Object.assign(columns, { key: side.exact.keys, check: side.exact.checks });
  if (side.measures) Object.assign(columns, side.measures);
  const vectors: Record<string, arrow.Vector> = {};
  for (const [name, values] of Object.entries(columns)) vectors[name] = arrow.makeVector(values);
  // A table with no columns has no rows: the count is checked against the rows' instead.
  const sidecar = Object.keys(vectors).length > 0 ? new arrow.Table(vectors) : new arrow.Table();
  const a = tableToIpcStream(rows);
  const b = tableToIpcStream(sidecar);
  const out = Buffer.allocUnsafe(HEAD + a.byteLength + b.byteLength);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(a.byteLength, MAGIC.length);
  out.writeUInt32LE(b.byteLength, MAGIC.length + 4);
  out.set(a, HEAD);
  out.set(b, HEAD + a.byteLength);
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
  /** The rows; their ids are in the `id` column (`utf8Values`). */
  rows: arrow.Table;
  side: ShardSidecar;
}

/** A frame that is not what its job's result says it is: the message says what is wrong, in a few words. */
export class ShardFrameError extends Error {
  override name = 'ShardFrameError';
}

/** Read and check a frame (throws ShardFrameError naming the first thing that does not fit). */
export function decodeShardFrame(bytes: Uint8Array, shape: FrameShape): DecodedShard {
  if (bytes.byteLength < HEAD || !MAGIC.equals(bytes.subarray(0, MAGIC.length)))
    throw new ShardFrameError('not a shard frame (no WNWSHRD1 header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const a = view.getUint32(MAGIC.length, true);
  const b = view.getUint32(MAGIC.length + 4, true);
  if (HEAD + a + b !== bytes.byteLength)
    throw new ShardFrameError(
      `its lengths (${a} + ${b} bytes) do not add up to its ${bytes.byteLength} bytes`,
    );
  const rows = readIpc(bytes.subarray(HEAD, HEAD + a), 'rows');
  const sidecar = readIpc(bytes.subarray(HEAD + a), 'sidecar');
  checkRows(rows, shape.rows);
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
  const measures = shape.tasksets ? measuresOf(values, shape.tasksets.length) : null;
  const exact = shape.exact
    ? { keys: values.key as Float64Array, checks: values.check as Uint32Array }
    : null;
  return { rows, side: { exact, measures } };
}

function readIpc(bytes: Uint8Array, what: string): arrow.Table {
  try {
    return arrow.tableFromIPC(bytes);
  } catch (err) {
    throw new ShardFrameError(`its ${what} are not an Arrow IPC stream (${(err as Error).message})`);
  }
}

/** The rows must be in the task table's layout, as many as the result says, every id set. */
function checkRows(rows: arrow.Table, count: number): void {
  const got = rows.schema.fields.map((f) => `${f.name}: ${f.type}`);
  const want = TASK_SCHEMA.fields.map((f) => `${f.name}: ${f.type}`);
  const diff = want.findIndex((w, i) => got[i] !== w);
  if (diff >= 0 || got.length !== want.length)
    throw new ShardFrameError(
      `its rows are not in the task table's layout (column ${diff >= 0 ? diff + 1 : want.length + 1}: ${got[diff >= 0 ? diff : want.length] ?? 'missing'}, expected ${want[diff] ?? 'none'})`,
    );
  if (rows.numRows !== count)
    throw new ShardFrameError(`it holds ${rows.numRows} row(s), its result says ${count}`);
  if (rows.getChild('id')!.nullCount > 0) throw new ShardFrameError('a row has no id');
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
