import * as arrow from 'apache-arrow';
import type { Task } from '../core/task.ts';
import type { LandedMeasures } from '../operators/task/landed-measures.ts';
import { type RowRange, takeRanges } from '../store/arrow-take.ts';
import type { EncodedChunk } from './encoded-chunk.ts';
import type { ChunkRows } from './jsonl-chunk-rows.ts';

/** One chunk's encoded rows, numbered in the file, held until its last row has landed. */
interface Part {
  /** Index of its first row among every encoded row of the run. */
  base: number;
  n: number;
  table: arrow.Table;
  ids: string;
  idEnds: Int32Array;
  keys: Float64Array;
  checks: Uint32Array;
  measures: LandedMeasures | null;
  odd: Map<number, Task>;
  file: string;
  sourceRows: Int32Array;
}

/**
 * The main thread's side of encoded chunks (encoded-chunk.ts): rows stay in the worker's Arrow
 * buffers, and a row is named by its index among all the run's encoded rows. The batches the
 * reader would have made (ChunkBatcher) carry those indices; landing one reads each row's id and
 * key hash, rebuilds only a dropped row as a task (its rejected record), and hands the kept rows
 * on as one Arrow table.
 */
export class EncodedRows {
  private readonly parts: Part[] = [];
  private next = 0;

  /** Take a chunk numbered in `file` by `lineOffset` (the lines before it); its rows as indices. */
  add(e: EncodedChunk, file: string, lineOffset: number): ChunkRows<number> {
    const table = arrow.tableFromIPC(e.ipc);
    const n = e.idEnds.length;
    if (table.numRows !== n) throw new Error(`an encoded chunk's rows do not match their count (${n})`);
    const sourceRows = sourceRowValues(table);
    const odd = new Map<number, Task>();
    for (const [k, i] of e.oddIndex.entries()) odd.set(i, e.odd[k]!);
    if (lineOffset !== 0) {
      for (let i = 0; i < sourceRows.length; i++) sourceRows[i] = sourceRows[i]! + lineOffset;
      for (const r of e.readRejected) r.row += lineOffset;
      for (const r of e.mapRejected) r.row += lineOffset;
      const moved = new Set<object>();
      const shift = (t: Task) => {
        // A step's drop and an odd row may be one object: move each once.
        if (t.source && !moved.has(t)) {
          t.source = { ...t.source, row: t.source.row + lineOffset };
          moved.add(t);
        }
      };
      for (const r of e.rejected) shift(r.row);
      for (const t of odd.values()) shift(t);
    }
    const base = this.next;
    this.next += n;
    this.parts.push({ ...e, base, n, table, odd, file, sourceRows });
    const {
      ipc: _ipc,
      ids: _ids,
      idEnds: _ends,
      keys: _k,
      checks: _c,
      measures: _m,
      oddIndex: _o,
      odd: _odd,
      ...rows
    } = e;
    const tasks = new Array<number>(n);
    for (let i = 0; i < n; i++) tasks[i] = base + i;
    return { ...rows, tasks };
  }

  private at(g: number): { part: Part; i: number } {
    for (const part of this.parts) if (g < part.base + part.n) return { part, i: g - part.base };
    throw new Error(`encoded row ${g} is not held`);
  }

  /** Row `g`'s id and exact_dedup key hash. */
  hashed(g: number): { id: string; key: number; check: number } {
    const { part, i } = this.at(g);
    const id = part.ids.slice(i === 0 ? 0 : part.idEnds[i - 1]!, part.idEnds[i]!);
    return { id, key: part.keys[i]!, check: part.checks[i]! };
  }

  /** Row `g`'s source (file and line), as its task has it. */
  source(g: number): Task['source'] {
    const { part, i } = this.at(g);
    const odd = part.odd.get(i);
    return odd ? odd.source : { file: part.file, row: part.sourceRows[i]! };
  }

  /** Row `g` as the task it was (a dropped row's rejected record is written from it). */
  task(g: number): Task {
    const { part, i } = this.at(g);
    const odd = part.odd.get(i);
    if (odd) return odd;
    // A row of the usual shape (jsonl-chunk-pack.ts): its keys in the mapping's order, absent ones absent.
    const cell = (name: string) => part.table.getChild(name)!.get(i) as string | null;
    const prompt = cell('prompt');
    const answer = cell('answer');
    return {
      id: this.hashed(g).id,
      taskset: cell('taskset')!,
      ...(prompt !== null ? { prompt } : {}),
      ...(answer !== null ? { answer } : {}),
      features: {},
      meta: {},
      source: { file: part.file, row: part.sourceRows[i]! },
    };
  }

  /**
   * Rows `kept` (ascending) as one table, with their report measures (row k of the table is
   * measure k); then every part whose rows all come before `upTo` is let go.
   */
  take(kept: readonly number[], upTo: number): { rows: arrow.Table | null; measures: LandedMeasures | null } {
    const batches: arrow.RecordBatch[] = [];
    let measures: LandedMeasures | null = null;
    let k = 0;
    for (const part of this.parts) {
      const end = part.base + part.n;
      const ranges: RowRange[] = [];
      const from = k;
      while (k < kept.length && kept[k]! < end) {
        const start = kept[k]! - part.base;
        let stop = start + 1;
        while (k + 1 < kept.length && kept[k + 1] === kept[k]! + 1 && kept[k + 1]! < end) {
          k++;
          stop++;
        }
        ranges.push([start, stop]);
        k++;
      }
      if (ranges.length === 0) continue;
      batches.push(...takeRanges(part.table, ranges).batches);
      if (part.measures) measures = addMeasures(measures, part.measures, kept.slice(from, k), part.base);
    }
    while (this.parts.length > 0 && this.parts[0]!.base + this.parts[0]!.n <= upTo) this.parts.shift();
    if (batches.length === 0) return { rows: null, measures };
    return { rows: new arrow.Table(batches[0]!.schema, batches), measures };
  }
}

/** The source_row column's values (one batch: a chunk is encoded at once), to renumber in place. */
function sourceRowValues(table: arrow.Table): Int32Array {
  const data = table.getChild('source_row')?.data;
  if (data?.length !== 1) throw new Error('an encoded chunk has no single source_row column');
  const d = data[0]!;
  return (d.values as Int32Array).subarray(d.offset, d.offset + d.length);
}

/** `into` (or a new set) with the measures of rows `rows` (indices from `base`) appended. */
function addMeasures(
  into: LandedMeasures | null,
  m: LandedMeasures,
  rows: readonly number[],
  base: number,
): LandedMeasures {
  const out = into ?? { chars: [], words: [], difficulty: [], taskset: [], tasksets: [] };
  // Where each of `m`'s tasksets is in `out` (a run maps most rows to one taskset).
  const sets = m.tasksets.map((name) => {
    const t = out.tasksets.indexOf(name);
    return t >= 0 ? t : out.tasksets.push(name) - 1;
  });
  for (const g of rows) {
    const i = g - base;
    const t = sets[m.taskset[i]!]!;
    out.chars.push(m.chars[i]!);
    out.words.push(m.words[i]!);
    out.difficulty.push(m.difficulty[i] ?? null);
    out.taskset.push(t);
  }
  return out;
}
