import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { tableToIpcStream } from '../../src/io/arrow-ipc.ts';
import { type RowRange, takeRanges } from '../../src/scale/arrow-take.ts';
import { TaskRowsEncoder } from '../../src/store/task-encoder.ts';
import { decodeTasks } from '../../src/store/task-table.ts';

// The coordinator keeps a shard's rows by copying runs of them out of the worker's Arrow: the
// result must decode to exactly the kept tasks, whatever the columns hold (nulls, messages, maps).
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('数学の問題', '😀 é', ''));
const taskArb = fc.record({
  taskset: fc.constantFrom('a', 'b'),
  prompt: fc.option(text, { nil: undefined }),
  messages: fc.option(
    fc.array(fc.record({ role: fc.constantFrom('user', 'system'), content: text }), {
      minLength: 1,
      maxLength: 3,
    }),
    { nil: undefined },
  ),
  answer: fc.option(text, { nil: undefined }),
  features: fc.dictionary(fc.constantFrom('difficulty', 'x', 'y'), fc.double({ noNaN: true })),
  meta: fc.oneof(fc.constant({}), fc.record({ k: fc.integer() })),
  row: fc.nat(1000),
});

describe('takeRanges: rows of a worker-encoded table, copied into one batch', () => {
  it('decodes to the tasks in the ranges, in order', () => {
    fc.assert(
      fc.property(
        fc.array(taskArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        (raw, keep) => {
          const tasks: Task[] = raw.map((r, i) => ({
            id: `t${i}`,
            taskset: r.taskset,
            ...(r.prompt !== undefined || r.messages === undefined ? { prompt: r.prompt ?? 'p' } : {}),
            ...(r.messages ? { messages: r.messages } : {}),
            ...(r.answer !== undefined ? { answer: r.answer } : {}),
            features: r.features,
            meta: r.meta,
            source: { file: 'f.jsonl', row: r.row },
          }));
          const encoder = new TaskRowsEncoder('run', tasks.length);
          for (const t of tasks) encoder.push(t);
          const table = arrow.tableFromIPC(tableToIpcStream(encoder.finish(1_700_000_000_000)));
          const kept = tasks.map((_, i) => i).filter((i) => keep[i] !== false);
          const ranges: RowRange[] = [];
          for (const i of kept) {
            const last = ranges.at(-1);
            if (last && last[1] === i) ranges[ranges.length - 1] = [last[0], i + 1];
            else ranges.push([i, i + 1]);
          }
          const taken = takeRanges(table, ranges);
          expect(taken.numRows).toBe(kept.length);
          expect(taken.batches.length).toBe(kept.length > 0 ? 1 : 0);
          // Through IPC, as LanceDB receives it.
          const back = arrow.tableFromIPC(tableToIpcStream(taken));
          const all = decodeTasks(table);
          expect(decodeTasks(back)).toEqual(kept.map((i) => all[i]));
        },
      ),
      { numRuns: 150, seed: 40 },
    );
  });

  // apache-arrow slices a column's offsets and fixed-width values with it and keeps an offset
  // only for the validity bitmap: a sliced input must be read from the slice's start, not twice.
  it('takes from a sliced input: table.slice, and batches over sliced columns', () => {
    const tasks: Task[] = Array.from({ length: 30 }, (_, i) => ({
      id: `t${i}`,
      taskset: i % 2 ? 'a' : 'b',
      prompt: `prompt ${i} ${'x'.repeat(i % 5)}`,
      ...(i % 3 === 0 ? {} : { answer: String(i) }),
      ...(i % 4 === 0 ? { messages: [{ role: 'user' as const, content: `m${i}` }] } : {}),
      features: (i % 2 ? { difficulty: i / 10 } : {}) as Record<string, number>,
      meta: {},
      source: { file: 'f.jsonl', row: 100 + i },
    }));
    const encoder = new TaskRowsEncoder('run', tasks.length);
    for (const t of tasks) encoder.push(t);
    const table = arrow.tableFromIPC(tableToIpcStream(encoder.finish(1_700_000_000_000)));
    const all = decodeTasks(table);
    const ranges: RowRange[] = [
      [0, 2],
      [5, 9],
      [12, 13],
    ];
    const want = [0, 1, 5, 6, 7, 8, 12].map((i) => all[7 + i]);
    const viaSlice = takeRanges(table.slice(7, 27), ranges);
    expect(decodeTasks(arrow.tableFromIPC(tableToIpcStream(viaSlice)))).toEqual(want);
    // A batch whose struct starts at 0 over columns that are slices (offset 7 each).
    const data = table.batches[0]!.data;
    const sliced = arrow.makeData({
      type: data.type,
      length: 20,
      nullCount: 0,
      children: data.children.map((c) => c.slice(7, 20)),
    });
    const overSlices = new arrow.Table(table.schema, [new arrow.RecordBatch(table.schema, sliced)]);
    expect(decodeTasks(overSlices)).toEqual(all.slice(7, 27));
    const taken = takeRanges(overSlices, ranges);
    expect(decodeTasks(arrow.tableFromIPC(tableToIpcStream(taken)))).toEqual(want);
  });
});
