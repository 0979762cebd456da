import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskRejection } from '../../src/core/rejected.ts';
import type { Task } from '../../src/core/task.ts';
import { tableToIpcStream } from '../../src/io/arrow-ipc.ts';
import {
  asideRecordsTable,
  decodeShardFrame,
  encodeShardFrame,
  type FrameShape,
  frameOfSections,
  ShardFrameError,
  type ShardSidecar,
  utf8Values,
} from '../../src/scale/shard-frame.ts';
import { decodeShardRows, idsOf } from '../../src/scale/shard-rows.ts';
import { TaskRowsEncoder } from '../../src/store/task-encoder.ts';
import { decodeTasks } from '../../src/store/task-table.ts';

// A worker's shard frame: the rows in the task layout and, beside them, one value per row. What the
// coordinator reads back must be exactly what the worker wrote; anything else is refused with a
// message that says what does not fit (the coordinator adds the shard and the worker).

function tasksOf(ids: readonly string[]): Task[] {
  return ids.map((id, i) => ({
    id,
    taskset: i % 2 ? 'a' : 'b',
    prompt: `prompt ${i} ${id}`,
    answer: String(i),
    features: (i % 3 ? { difficulty: i / 10 } : {}) as Record<string, number>,
    meta: {},
    source: { file: 'in.jsonl', row: i + 1 },
  }));
}

/** The frame of `tasks` with the rows `side` marks aside in the second section. */
function frameOf(tasks: readonly Task[], side: ShardSidecar): Buffer {
  const marks = side.exact?.aside;
  return encodeShardFrame(
    rowsOf(tasks.filter((_, i) => !marks?.[i])),
    rowsOf(tasks.filter((_, i) => marks?.[i])),
    side,
  );
}

function rowsOf(tasks: readonly Task[]): arrow.Table {
  const encoder = new TaskRowsEncoder('run-1', Math.max(1, tasks.length));
  for (const t of tasks) encoder.push(t);
  return encoder.finish(1_700_000_000_000);
}

/** The sidecar of `n` rows; `aside`: the rows the worker's dedup set aside (none by default). */
function sidecarOf(n: number, seed: number, aside: readonly number[] = []): ShardSidecar {
  const marks = new Uint8Array(n);
  for (const i of aside) marks[i] = 1;
  return {
    exact: {
      keys: Float64Array.from({ length: n }, (_, i) => (i * 2654435761 + seed) % 2 ** 53),
      checks: Uint32Array.from({ length: n }, (_, i) => (i * 40503 + seed) >>> 0),
      aside: marks,
    },
    measures: {
      chars: Int32Array.from({ length: n }, (_, i) => 10 + i),
      words: Int32Array.from({ length: n }, (_, i) => 2 + (i % 5)),
      difficulty: Float64Array.from({ length: n }, (_, i) => (i % 3 ? i / 10 : Number.NaN)),
      taskset: Int32Array.from({ length: n }, (_, i) => i % 2),
    },
  };
}

const SHAPE = (rows: number): FrameShape => ({ rows, exact: true, tasksets: ['b', 'a'] });

/** The frame's bytes at an odd offset of a larger buffer (a Redis reply may land anywhere). */
function misaligned(bytes: Uint8Array): Buffer {
  const big = Buffer.alloc(bytes.byteLength + 3);
  big.set(bytes, 3);
  return big.subarray(3);
}

describe('shard frame: a worker’s rows and their sidecar in one binary value', () => {
  it('reads back both sections, their ids in input order and every sidecar value exactly, at any byte offset', () => {
    const id = fc.oneof(
      fc.stringMatching(/^[a-z0-9-]{1,12}$/),
      fc.constantFrom('数学-1', 'é😀', 'x\u0000y', 'a"b\\c'),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { minLength: 1, maxLength: 30 }),
        fc.nat(1000),
        fc.array(fc.boolean(), { maxLength: 30 }),
        (ids, seed, asideFlags) => {
          const tasks = tasksOf(ids);
          const aside = ids.map((_, i) => i).filter((i) => asideFlags[i] === true);
          const side = sidecarOf(ids.length, seed, aside);
          const got = decodeShardFrame(misaligned(frameOf(tasks, side)), SHAPE(ids.length));
          expect(idsOf(got, 0, ids.length)).toEqual(ids);
          expect(utf8Values(got.rows.getChild('id')!)).toEqual(ids.filter((_, i) => !aside.includes(i)));
          expect(utf8Values(got.aside.getChild('id')!)).toEqual(aside.map((i) => ids[i]));
          expect(
            decodeShardRows(
              got,
              ids.map((_, i) => i),
            ),
          ).toEqual(decodeTasks(rowsOf(tasks)));
          expect(Array.from(got.side.exact!.aside)).toEqual(Array.from(side.exact!.aside));
          // The records of the rows set aside: as the coordinator would record the decoded rows.
          const records = decodeTasks(rowsOf(aside.map((i) => tasks[i]!))).map((t) =>
            taskRejection('', t, ''),
          );
          expect(got.asideRecords.payload).toEqual(records.map((r) => r.payload));
          expect(got.asideRecords.file).toEqual(records.map((r) => r.file));
          expect(Array.from(got.asideRecords.row)).toEqual(records.map((r) => r.row));
          expect(Array.from(got.side.exact!.keys)).toEqual(Array.from(side.exact!.keys));
          expect(Array.from(got.side.exact!.checks)).toEqual(Array.from(side.exact!.checks));
          expect(Array.from(got.side.measures!.difficulty)).toEqual(Array.from(side.measures!.difficulty));
          expect(Array.from(got.side.measures!.taskset)).toEqual(Array.from(side.measures!.taskset));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('carries no sidecar columns when the run has neither exact_dedup nor a report', () => {
    const tasks = tasksOf(['a', 'b']);
    const got = decodeShardFrame(frameOf(tasks, { exact: null, measures: null }), {
      rows: 2,
      exact: false,
      tasksets: null,
    });
    expect(utf8Values(got.rows.getChild('id')!)).toEqual(['a', 'b']);
    expect(got.side).toEqual({ exact: null, measures: null });
  });

  it('utf8Values decodes ASCII and non-ASCII columns, sliced or not', () => {
    const v = arrow.vectorFromArray(['r1', '', 'é', 'r22', '数'], new arrow.Utf8());
    expect(utf8Values(v)).toEqual(['r1', '', 'é', 'r22', '数']);
    expect(utf8Values(v.slice(2, 4))).toEqual(['é', 'r22']);
    expect(utf8Values(arrow.vectorFromArray(['a', 'bc'], new arrow.Utf8()).slice(1))).toEqual(['bc']);
  });

  describe('refuses a frame that is not what its result says, saying what does not fit', () => {
    const tasks = tasksOf(['r1', 'r2', 'r3']);
    const good = frameOf(tasks, sidecarOf(3, 1));
    const refuse = (bytes: Uint8Array, shape: FrameShape, message: RegExp) => {
      let err: unknown;
      try {
        decodeShardFrame(bytes, shape);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ShardFrameError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    };
    /** A frame of these sections' IPC bytes, as a worker would write it. */
    const frameBytes = frameOfSections;
    const noneAside = tableToIpcStream(asideRecordsTable(rowsOf([])));
    const withSidecar = (side: arrow.Table) =>
      frameBytes([
        tableToIpcStream(rowsOf(tasks)),
        tableToIpcStream(rowsOf([])),
        noneAside,
        tableToIpcStream(side),
      ]);
    const side = sidecarOf(3, 1);
    const columns = {
      key: arrow.makeVector(side.exact!.keys),
      check: arrow.makeVector(side.exact!.checks),
      aside: arrow.makeVector(side.exact!.aside),
      chars: arrow.makeVector(side.measures!.chars),
      words: arrow.makeVector(side.measures!.words),
      difficulty: arrow.makeVector(side.measures!.difficulty),
      taskset: arrow.makeVector(side.measures!.taskset),
    };

    it('not a frame at all, or cut short', () => {
      refuse(Buffer.from('{"rows":[]}'), SHAPE(3), /^not a shard frame \(no WNWSHRD2 header\)$/);
      refuse(
        good.subarray(0, good.length - 5),
        SHAPE(3),
        /^its lengths \(\d+ \+ \d+ \+ \d+ \+ \d+ bytes\) do not add up/,
      );
    });

    it('rows that are not Arrow, or not in the task layout, or not as many as the result says', () => {
      const garbage = Buffer.from(good);
      garbage.fill(7, 24, 48);
      refuse(garbage, SHAPE(3), /^its kept rows are not an Arrow IPC stream/);
      const other = new arrow.Table({ id: arrow.vectorFromArray(['r1', 'r2', 'r3'], new arrow.Utf8()) });
      const sidecar = tableToIpcStream(new arrow.Table(columns));
      const empty = tableToIpcStream(rowsOf([]));
      refuse(
        frameBytes([tableToIpcStream(other), empty, noneAside, sidecar]),
        SHAPE(3),
        /^its kept rows are not in the task table's layout \(column 2: missing/,
      );
      refuse(
        frameBytes([tableToIpcStream(rowsOf(tasks)), tableToIpcStream(other), noneAside, sidecar]),
        SHAPE(3),
        /^its rows set aside are not in the task table's layout \(column 2: missing/,
      );
      refuse(good, SHAPE(4), /^it holds 3 \+ 0 row\(s\), its result says 4$/);
    });

    it('a sidecar with a column missing, of another type, too short, or naming no taskset', () => {
      const { check: _check, ...noCheck } = columns;
      refuse(withSidecar(new arrow.Table(noCheck)), SHAPE(3), /^sidecar columns are \[key,aside,chars,/);
      refuse(
        withSidecar(new arrow.Table({ ...columns, key: arrow.makeVector(Int32Array.from([1, 2, 3])) })),
        SHAPE(3),
        /^sidecar column 'key' is Int32, expected Float64 without nulls$/,
      );
      const short = Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, v.slice(0, 2)]));
      refuse(withSidecar(new arrow.Table(short)), SHAPE(3), /^sidecar has 2 row\(s\), the rows 3$/);
      refuse(
        withSidecar(new arrow.Table({ ...columns, taskset: arrow.makeVector(Int32Array.from([0, 5, 1])) })),
        SHAPE(3),
        /^row 1's taskset index 5 names none of its 2 taskset\(s\)$/,
      );
      refuse(
        good,
        { rows: 3, exact: false, tasksets: null },
        /^sidecar columns are \[key,check,aside,.*expected \[\]$/,
      );
    });

    it('records of the rows set aside that are not one per row, or of another shape', () => {
      const sidecar = tableToIpcStream(new arrow.Table(columns));
      const rows = tableToIpcStream(rowsOf(tasks));
      const one = asideRecordsTable(rowsOf(tasks.slice(0, 1)));
      refuse(
        frameBytes([rows, tableToIpcStream(rowsOf([])), tableToIpcStream(one), sidecar]),
        SHAPE(3),
        /^it holds 1 record\(s\) of its 0 row\(s\) set aside$/,
      );
      const other = new arrow.Table({ file: arrow.vectorFromArray([] as string[], new arrow.Utf8()) });
      refuse(
        frameBytes([rows, tableToIpcStream(rowsOf([])), tableToIpcStream(other), sidecar]),
        SHAPE(3),
        /^its records of the rows set aside are \[file: Utf8\], expected \[file: Utf8, row: Int32, payload: Utf8\]$/,
      );
    });

    it('aside marks that are not 0 or 1, or do not count the rows set aside', () => {
      refuse(
        withSidecar(new arrow.Table({ ...columns, aside: arrow.makeVector(Uint8Array.from([0, 2, 0])) })),
        SHAPE(3),
        /^row 1's aside mark is 2, expected 0 or 1$/,
      );
      refuse(
        withSidecar(new arrow.Table({ ...columns, aside: arrow.makeVector(Uint8Array.from([0, 1, 0])) })),
        SHAPE(3),
        /^its sidecar marks 1 row\(s\) aside, the frame holds 0$/,
      );
    });
  });
});
