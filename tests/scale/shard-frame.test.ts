import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { tableToIpcStream } from '../../src/io/arrow-ipc.ts';
import {
  decodeShardFrame,
  encodeShardFrame,
  type FrameShape,
  ShardFrameError,
  type ShardSidecar,
  utf8Values,
} from '../../src/scale/shard-frame.ts';
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

function rowsOf(tasks: readonly Task[]): arrow.Table {
  const encoder = new TaskRowsEncoder('run-1', Math.max(1, tasks.length));
  for (const t of tasks) encoder.push(t);
  return encoder.finish(1_700_000_000_000);
}

function sidecarOf(n: number, seed: number): ShardSidecar {
  return {
    exact: {
      keys: Float64Array.from({ length: n }, (_, i) => (i * 2654435761 + seed) % 2 ** 53),
      checks: Uint32Array.from({ length: n }, (_, i) => (i * 40503 + seed) >>> 0),
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
  it('reads back the rows, their ids and every sidecar value exactly, at any byte offset', () => {
    const id = fc.oneof(
      fc.stringMatching(/^[a-z0-9-]{1,12}$/),
      fc.constantFrom('数学-1', 'é😀', 'x\u0000y', 'a"b\\c'),
    );
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1, maxLength: 30 }), fc.nat(1000), (ids, seed) => {
        const tasks = tasksOf(ids);
        const side = sidecarOf(ids.length, seed);
        const got = decodeShardFrame(misaligned(encodeShardFrame(rowsOf(tasks), side)), SHAPE(ids.length));
        expect(utf8Values(got.rows.getChild('id')!)).toEqual(ids);
        expect(decodeTasks(got.rows)).toEqual(decodeTasks(rowsOf(tasks)));
        expect(Array.from(got.side.exact!.keys)).toEqual(Array.from(side.exact!.keys));
        expect(Array.from(got.side.exact!.checks)).toEqual(Array.from(side.exact!.checks));
        expect(Array.from(got.side.measures!.difficulty)).toEqual(Array.from(side.measures!.difficulty));
        expect(Array.from(got.side.measures!.taskset)).toEqual(Array.from(side.measures!.taskset));
      }),
      { numRuns: 40 },
    );
  });

  it('carries no sidecar columns when the run has neither exact_dedup nor a report', () => {
    const tasks = tasksOf(['a', 'b']);
    const got = decodeShardFrame(encodeShardFrame(rowsOf(tasks), { exact: null, measures: null }), {
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
    const good = encodeShardFrame(rowsOf(tasks), sidecarOf(3, 1));
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
    const withSidecar = (side: arrow.Table) => {
      const a = tableToIpcStream(rowsOf(tasks));
      const b = tableToIpcStream(side);
      const out = Buffer.alloc(16 + a.byteLength + b.byteLength);
      out.write('WNWSHRD1', 'latin1');
      out.writeUInt32LE(a.byteLength, 8);
      out.writeUInt32LE(b.byteLength, 12);
      out.set(a, 16);
      out.set(b, 16 + a.byteLength);
      return out;
    };
    const side = sidecarOf(3, 1);
    const columns = {
      key: arrow.makeVector(side.exact!.keys),
      check: arrow.makeVector(side.exact!.checks),
      chars: arrow.makeVector(side.measures!.chars),
      words: arrow.makeVector(side.measures!.words),
      difficulty: arrow.makeVector(side.measures!.difficulty),
      taskset: arrow.makeVector(side.measures!.taskset),
    };

    it('not a frame at all, or cut short', () => {
      refuse(Buffer.from('{"rows":[]}'), SHAPE(3), /^not a shard frame \(no WNWSHRD1 header\)$/);
      refuse(good.subarray(0, good.length - 5), SHAPE(3), /^its lengths \(\d+ \+ \d+ bytes\) do not add up/);
    });

    it('rows that are not Arrow, or not in the task layout, or not as many as the result says', () => {
      const garbage = Buffer.from(good);
      garbage.fill(7, 16, 40);
      refuse(garbage, SHAPE(3), /^its rows are not an Arrow IPC stream/);
      const other = new arrow.Table({ id: arrow.vectorFromArray(['r1', 'r2', 'r3'], new arrow.Utf8()) });
      const a = tableToIpcStream(other);
      const b = tableToIpcStream(new arrow.Table(columns));
      const bad = Buffer.alloc(16 + a.byteLength + b.byteLength);
      bad.write('WNWSHRD1', 'latin1');
      bad.writeUInt32LE(a.byteLength, 8);
      bad.writeUInt32LE(b.byteLength, 12);
      bad.set(a, 16);
      bad.set(b, 16 + a.byteLength);
      refuse(bad, SHAPE(3), /^its rows are not in the task table's layout \(column 2: missing/);
      refuse(good, SHAPE(4), /^it holds 3 row\(s\), its result says 4$/);
    });

    it('a sidecar with a column missing, of another type, too short, or naming no taskset', () => {
      const { check: _check, ...noCheck } = columns;
      refuse(withSidecar(new arrow.Table(noCheck)), SHAPE(3), /^sidecar columns are \[key,chars,/);
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
        /^sidecar columns are \[key,check,.*expected \[\]$/,
      );
    });
  });
});
