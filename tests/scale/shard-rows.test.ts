import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { exactDedupOp } from '../../src/operators/task/exact-dedup.ts';
import { ExactDedupKeyer } from '../../src/operators/task/exact-dedup-prepared.ts';
import type { RowRange } from '../../src/scale/arrow-take.ts';
import {
  type DecodedShard,
  decodeShardFrame,
  encodeShardFrame,
  utf8Values,
} from '../../src/scale/shard-frame.ts';
import { FRAME_BATCH_ROWS, ShardFrameBuilder } from '../../src/scale/shard-frame-builder.ts';
import { decodeShardRows, idsOf, keptRowsOf } from '../../src/scale/shard-rows.ts';
import { connect } from '../../src/store/connection.ts';
import { hasIpcBatches, IpcRecordBatch, ipcFileOf } from '../../src/store/ipc-file.ts';
import { appendsDirectly, appendTable } from '../../src/store/lance-append.ts';
import { TaskRowsEncoder } from '../../src/store/task-encoder.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { decodeTasks } from '../../src/store/task-table.ts';
import { tempDir } from '../helpers/tmp.ts';

// The coordinator's byte-level commit of a shard: the record batches of the frame's kept section
// that keep every row go to LanceDB as the worker's IPC bytes; a batch that loses a row (a repeat of
// an earlier shard's row), and a row the worker set aside that the coordinator keeps after all, are
// copied out. Whatever the mix, the committed rows are the kept rows in input order.

const dir = tempDir('winnow-shard-rows-');

function tasksOf(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    taskset: i % 3 ? 'a' : 'b',
    prompt: `prompt ${i}${i % 4 === 0 ? ' é' : ''}`,
    ...(i % 5 === 0 ? {} : { answer: String(i) }),
    features: (i % 2 ? { difficulty: i / 10 } : {}) as Record<string, number>,
    meta: (i % 7 === 0 ? { note: `n${i}` } : {}) as Record<string, string>,
    source: { file: 'in.jsonl', row: i + 1 },
  }));
}

function encoded(tasks: readonly Task[]): arrow.Table {
  const e = new TaskRowsEncoder('run-1', Math.max(1, tasks.length));
  for (const t of tasks) e.push(t);
  return e.finish(1_700_000_000_000);
}

/** A frame of `tasks`, those in `aside` in the second section, the first cut into batches of `batch` rows. */
function shardOf(tasks: readonly Task[], aside: ReadonlySet<number>, batch: number): DecodedShard {
  const kept = tasks.filter((_, i) => !aside.has(i));
  const batches: arrow.RecordBatch[] = [];
  for (let s = 0; s < kept.length; s += batch) batches.push(...encoded(kept.slice(s, s + batch)).batches);
  const n = tasks.length;
  const marks = Uint8Array.from({ length: n }, (_, i) => (aside.has(i) ? 1 : 0));
  const bytes = encodeShardFrame(
    batches.length > 0 ? new arrow.Table(batches) : encoded([]),
    encoded(tasks.filter((_, i) => aside.has(i))),
    { exact: { keys: new Float64Array(n), checks: new Uint32Array(n), aside: marks }, measures: null },
  );
  return decodeShardFrame(bytes, { rows: n, exact: true, tasksets: null });
}

/** Runs [start, end) of the kept rows. */
function runsOf(kept: readonly number[]): RowRange[] {
  const out: [number, number][] = [];
  for (const i of kept) {
    const last = out.at(-1);
    if (last && last[1] === i) last[1] = i + 1;
    else out.push([i, i + 1]);
  }
  return out;
}

const rowsOf = (t: arrow.Table) => decodeTasks(t).map((x) => [x.id, x.prompt, x.answer ?? null, x.meta]);
const passed = (t: arrow.Table) => t.batches.map((b) => b instanceof IpcRecordBatch);

describe('a shard’s kept rows, committed as the worker’s bytes where they can be', () => {
  const tasks = tasksOf(10);

  it('every row kept: every batch passes as it came, and the IPC file holds the rows in order', () => {
    const shard = shardOf(tasks, new Set(), 4);
    const out = keptRowsOf(shard, [[0, 10]]);
    expect(passed(out)).toEqual([true, true, true]);
    expect(out.batches).toEqual(shard.rows.batches);
    expect(rowsOf(arrow.tableFromIPC(ipcFileOf(out)))).toEqual(rowsOf(encoded(tasks)));
  });

  it('the worker’s own repeats dropped too: the batches still pass whole', () => {
    // Rows 2 and 7 set aside by the worker and dropped by the coordinator as well.
    const shard = shardOf(tasks, new Set([2, 7]), 4);
    const out = keptRowsOf(shard, runsOf([0, 1, 3, 4, 5, 6, 8, 9]));
    expect(passed(out)).toEqual([true, true]);
    expect(out.numRows).toBe(8);
    expect(rowsOf(out)).toEqual(rowsOf(encoded(tasks.filter((_, i) => i !== 2 && i !== 7))));
  });

  it('a batch that loses a row (a repeat of an earlier shard) is rebuilt; the others pass', () => {
    const shard = shardOf(tasks, new Set([7]), 4);
    // The kept section is [0..6, 8, 9] in batches [0-3] [4,5,6,8] [9]; row 5 is dropped.
    const keep = [0, 1, 2, 3, 4, 6, 8, 9];
    const out = keptRowsOf(shard, runsOf(keep));
    expect(passed(out)).toEqual([true, false, true]);
    expect(rowsOf(out)).toEqual(rowsOf(encoded(keep.map((i) => tasks[i]!))));
    expect(rowsOf(arrow.tableFromIPC(ipcFileOf(out)))).toEqual(rowsOf(encoded(keep.map((i) => tasks[i]!))));
  });

  it('a row the worker set aside but the coordinator keeps lands in its place between the others', () => {
    // Row 5 was set aside (say, a text repeat of a row dropped for its id): the coordinator keeps it.
    const shard = shardOf(tasks, new Set([5, 8]), 3);
    const keep = [0, 1, 2, 3, 4, 5, 6, 7, 9];
    const out = keptRowsOf(shard, runsOf(keep));
    expect(rowsOf(out)).toEqual(rowsOf(encoded(keep.map((i) => tasks[i]!))));
    // Kept section [0,1,2] [3,4,6] [7,9]: the second has row 5 between its rows, so it is copied
    // in two parts around row 5; the third passes (row 8 between its rows is dropped).
    expect(passed(out)).toEqual([true, false, false, false, true]);
  });

  it('any mix of sections, batch sizes and kept rows: the rows of `kept` in input order, ids and drops too', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (n, batch, asideFlags, keepFlags) => {
          const all = tasksOf(n);
          const aside = new Set(all.map((_, i) => i).filter((i) => asideFlags[i]));
          const shard = shardOf(all, aside, batch);
          const keep = all.map((_, i) => i).filter((i) => keepFlags[i]);
          const drop = all.map((_, i) => i).filter((i) => !keepFlags[i]);
          const out = keptRowsOf(shard, runsOf(keep));
          const want = rowsOf(encoded(keep.map((i) => all[i]!)));
          expect(rowsOf(out)).toEqual(want);
          if (out.numRows > 0) expect(rowsOf(arrow.tableFromIPC(ipcFileOf(out)))).toEqual(want);
          expect(idsOf(shard, 0, n)).toEqual(all.map((t) => t.id));
          expect(decodeShardRows(shard, drop).map((t) => t.id)).toEqual(drop.map((i) => all[i]!.id));
          // A kept-section batch passes exactly when all its rows are kept and no kept row of the
          // other section sits between them.
          let start = 0;
          const wholes = shard.rows.batches.filter((b) => {
            const rows = Array.from({ length: b.numRows }, (_, k) => start + k);
            start += b.numRows;
            if (rows.length === 0) return false;
            const shardRows = all.map((_, i) => i).filter((i) => !aside.has(i));
            const mine = rows.map((k) => shardRows[k]!);
            const [lo, hi] = [mine[0]!, mine.at(-1)!];
            return mine.every((i) => keepFlags[i]) && !keep.some((i) => aside.has(i) && i > lo && i < hi);
          });
          expect(out.batches.filter((b) => b instanceof IpcRecordBatch)).toEqual(wholes);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a worker sets its shard’s repeats aside and cuts the rest into batches that double in size', () => {
    const all = tasksOf(5000).map((t, i) =>
      // Every 10th row repeats the text of the row before it; row 4321 repeats the id of row 7.
      i % 10 === 9
        ? { ...t, prompt: `prompt ${i - 1}${(i - 1) % 4 === 0 ? ' é' : ''}` }
        : i === 4321
          ? { ...t, id: 't7' }
          : t,
    );
    const builder = new ShardFrameBuilder('run-1', new ExactDedupKeyer(exactDedupOp.params.parse({})), false);
    builder.add(all.slice(0, 1234));
    builder.add(all.slice(1234));
    const { bytes, frame } = builder.finish('k');
    const shard = decodeShardFrame(bytes, frame);
    const repeats = all.map((_, i) => i).filter((i) => i % 10 === 9 || i === 4321);
    expect(utf8Values(shard.aside.getChild('id')!)).toEqual(repeats.map((i) => all[i]!.id));
    expect(shard.rows.batches.map((b) => b.numRows)).toEqual([
      FRAME_BATCH_ROWS,
      2 * FRAME_BATCH_ROWS,
      5000 - repeats.length - 3 * FRAME_BATCH_ROWS,
    ]);
    expect(passed(shard.rows)).toEqual([true, true, true]);
    expect(idsOf(shard, 0, 5000)).toEqual(all.map((t) => t.id));
  });

  it('LanceDB commits a table of passed and rebuilt batches as the same rows (a real table on disk)', async () => {
    const many = tasksOf(60);
    const shard = shardOf(many, new Set([4, 30]), 16);
    const keep = many.map((_, i) => i).filter((i) => i !== 4 && i !== 20);
    const rows = keptRowsOf(shard, runsOf(keep));
    // Kept section batches of 16: the second loses row 20 and has row 30 (set aside, kept) inside.
    expect(passed(rows)).toEqual([true, false, false, false, true, true]);
    const store = await TaskStore.open(join(dir, 'db'));
    await store.writeRows(rows, { append: true });
    await store.writeRows(keptRowsOf(shard, [[0, 4]]), { append: true });
    const back = await store.read();
    const want = [...keep, 0, 1, 2, 3].map((i) => many[i]!);
    expect(back.map((t) => [t.id, t.prompt, t.answer ?? null, t.meta, t.features])).toEqual(
      want.map((t) => [t.id, t.prompt, t.answer ?? null, t.meta, t.features]),
    );
    expect(await store.count()).toBe(want.length);
  });

  it('the bytes go to LanceDB’s native add, not through Table.add (which would encode them again)', async () => {
    const many = tasksOf(40);
    const shard = shardOf(many, new Set([3]), 16);
    const rows = keptRowsOf(shard, runsOf(many.map((_, i) => i).filter((i) => i !== 3)));
    expect(hasIpcBatches(rows)).toBe(true);
    const db = join(dir, 'db-native');
    await TaskStore.open(db);
    const table = await (await connect(db)).openTable('tasks');
    expect(appendsDirectly(table)).toBe(true);
    table.add = () => Promise.reject(new Error('Table.add was called'));
    await appendTable(table, rows, true);
    expect((await (await TaskStore.open(db)).read()).map((t) => t.id)).toEqual(
      many.filter((_, i) => i !== 3).map((t) => t.id),
    );
  });
});
