import * as arrow from 'apache-arrow';
import { WinnowError } from '../../core/errors.ts';
import type { Experience } from '../../core/experience.ts';
import type { ColumnSpec } from '../../store/arrow-codec.ts';
import { encodeRowsFast, numericVector } from './experience-arrow.ts';
import { encodeExperienceRows, isTypedExperienceLayout, responseFrom } from './experience-encoder.ts';
import type { StoredExperience } from './experience-table.ts';

/**
 * A write call's rows encoded as Arrow when the call is made, so its group commit only numbers the
 * rows and concatenates the calls' batches into one LanceDB `add`. `seq` and `priority` are known
 * only at commit (they depend on the rows committed before): they are encoded as 0 here and
 * replaced by `numberedTable`.
 */
export interface EncodedWrite {
  batch: arrow.RecordBatch;
  /** Each row's `payload_flags`, as encoded (the index keeps them too). */
  flags: Int32Array;
}

/** An encoded call as numbered by the group commit: its rows take seqs from `firstSeq` on, in order. */
export interface NumberedWrite {
  encoded: EncodedWrite;
  firstSeq: number;
  /** Each encoded row's priority, or one for every row. */
  priorities: Float64Array | number;
}

/**
 * Encode checked rows with a table's (fitted) columns, bookkeeping as for a new row. The typed
 * layout (every table made since it exists) takes the one-pass encoder; an older table's fitted
 * layout the column-at-a-time one.
 */
export function encodeWrite(
  rows: readonly Experience[],
  columns: readonly ColumnSpec<StoredExperience>[],
): EncodedWrite {
  if (isTypedExperienceLayout(columns)) return encodeExperienceRows(rows);
  const stored = rows.map((e) => unnumbered(responseLayout(e)));
  const batch = encodeRowsFast(stored, columns).batches[0]!;
  const flags = batch.getChild('payload_flags')!.data[0]!.values as Int32Array;
  return { batch, flags };
}

/**
 * A call's encoded rows without the duplicates its group commit found (a re-written step): each run
 * of consecutive kept rows `keep` (indexes into the call, increasing) as a slice of the call's own
 * batch, with the index of its first row in `keep`. Nothing is decoded or encoded again, so what the
 * table stores of a row is exactly what its batch holds.
 */
export function keptRuns(
  encoded: EncodedWrite,
  keep: readonly number[],
): Array<{ encoded: EncodedWrite; at: number; firstRow: number }> {
  const runs: Array<{ encoded: EncodedWrite; at: number; firstRow: number }> = [];
  let at = 0;
  while (at < keep.length) {
    const from = keep[at]!;
    let to = from + 1;
    while (at + (to - from) < keep.length && keep[at + (to - from)] === to) to++;
    runs.push({
      encoded: { batch: encoded.batch.slice(from, to), flags: encoded.flags.subarray(from, to) },
      at,
      firstRow: from,
    });
    at += to - from;
  }
  return runs;
}

/** One Arrow table of the calls' batches in order, each row given its `seq` and `priority`. */
export function numberedTable(
  parts: readonly NumberedWrite[],
  columns: readonly ColumnSpec<StoredExperience>[],
  tableName: string,
): arrow.Table {
  const seqAt = columns.findIndex((c) => c.name === 'seq');
  const priorityAt = columns.findIndex((c) => c.name === 'priority');
  const batches = parts.map(({ encoded, firstSeq, priorities }) => {
    const { batch } = encoded;
    const n = batch.numRows;
    if (typeof priorities !== 'number' && priorities.length !== n)
      throw new WinnowError(
        `experience table '${tableName}': ${priorities.length} rows numbered for a batch of ${n}`,
      );
    const children = batch.data.children.slice();
    const seqs = new Float64Array(n);
    for (let k = 0; k < n; k++) seqs[k] = firstSeq + k;
    const numbered = (at: number, values: ArrayLike<number>) =>
      numericVector(columns[at]!.type, values).data[0]!;
    children[seqAt] = numbered(seqAt, seqs);
    children[priorityAt] = numbered(
      priorityAt,
      typeof priorities === 'number' ? new Float64Array(n).fill(priorities) : priorities,
    );
    const type = new arrow.Struct(batch.schema.fields);
    return new arrow.RecordBatch(
      batch.schema,
      arrow.makeData({ type, length: batch.numRows, nullCount: 0, children }),
    );
  });
  return new arrow.Table(batches[0]!.schema, batches);
}

/** A checked row with its per-token arrays in the response layout (`checkRows` may leave them whole). */
function responseLayout(e: Experience): Experience {
  const total = e.tokens.length;
  const cut = (v: number[]) => {
    const from = responseFrom(v.length, total, e.promptLength);
    return from === 0 ? v : v.slice(from);
  };
  const out = { ...e, logprobs: cut(e.logprobs), actionMask: cut(e.actionMask) };
  if (e.advantages !== undefined) out.advantages = cut(e.advantages);
  return out;
}

/** A row not yet numbered: a new row's bookkeeping, seq and priority filled in at commit. */
function unnumbered(exp: Experience): StoredExperience {
  return { exp, seq: 0, useCount: 0, priority: 0, lastUsedStep: -1, lastUsedAt: 0, consumed: false };
}
