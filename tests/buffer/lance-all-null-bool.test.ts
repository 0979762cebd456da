import { join } from 'node:path';
import type { Table as LanceTable } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { UpkeepRunner } from '../../src/buffer/storage/upkeep-runner.ts';
import { localArrowTable } from '../../src/store/arrow-codec.ts';
import { connect } from '../../src/store/connection.ts';
import { appendArrow, appendsDirectly } from '../../src/store/lance-append.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * LanceDB on disk taking batches whose nullable boolean is null in every row. apache-arrow 18 writes
 * such an array without its values bitmap and Lance (arrow-rs) refused the whole append ("Need at
 * least 1 bytes for bitmap in buffers[0] in array of type Boolean"); src/io/arrow-ipc.ts fixes the
 * writer of both apache-arrow builds. Every way we write to Lance is covered: the buffer's direct
 * append (lance-append.ts), LanceDB's own `add` and `mergeInsert` (LanceDB's CommonJS apache-arrow),
 * a table read back from LanceDB (CommonJS classes) appended again, and the upkeep process's fold.
 */

const root = tempDir('winnow-lance-bool-');
const SCHEMA = new arrow.Schema([
  new arrow.Field('id', new arrow.Utf8(), false),
  new arrow.Field('seq', new arrow.Int64(), false),
  new arrow.Field('flag', new arrow.Bool(), true),
]);

type Row = { id: string; seq: number; flag: boolean | null };

function rowsTable(rows: readonly Row[]): arrow.Table {
  const data = arrow.makeData({
    type: new arrow.Struct(SCHEMA.fields),
    length: rows.length,
    nullCount: 0,
    children: [
      arrow.vectorFromArray(
        rows.map((r) => r.id),
        new arrow.Utf8(),
      ).data[0]!,
      arrow.vectorFromArray(
        rows.map((r) => BigInt(r.seq)),
        new arrow.Int64(),
      ).data[0]!,
      arrow.vectorFromArray(
        rows.map((r) => r.flag),
        new arrow.Bool(),
      ).data[0]!,
    ],
  });
  return new arrow.Table(SCHEMA, [new arrow.RecordBatch(SCHEMA, data)]);
}

const rows = (from: number, n: number, flag: (i: number) => boolean | null): Row[] =>
  Array.from({ length: n }, (_, k) => ({ id: `r${from + k}`, seq: from + k, flag: flag(from + k) }));

async function freshTable(name: string): Promise<LanceTable> {
  const conn = await connect(join(root, name));
  return conn.createEmptyTable('t', SCHEMA);
}

async function stored(table: LanceTable): Promise<Row[]> {
  const back = localArrowTable(await table.query().toArrow());
  const out = back
    .toArray()
    .map((r) => ({ id: String(r.id), seq: Number(r.seq), flag: r.flag as boolean | null }));
  return out.sort((a, b) => a.seq - b.seq);
}

const runners: UpkeepRunner[] = [];
afterAll(() => {
  for (const r of runners.splice(0)) r.stop();
});

describe('LanceDB appends of an all-null boolean column', () => {
  it("the buffer's direct append (lance-append.ts) stores every row exactly", async () => {
    const table = await freshTable('direct');
    expect(appendsDirectly(table)).toBe(true);
    const allNull = rows(0, 1024, () => null);
    const mixed = rows(1024, 3, (i) => (i === 1025 ? null : i % 2 === 0));
    expect(await appendArrow(table, rowsTable(allNull))).toBe(2);
    expect(await appendArrow(table, rowsTable(mixed))).toBe(3);
    expect(await stored(table)).toEqual([...allNull, ...mixed]);
  });

  it('a table read back from LanceDB (CommonJS apache-arrow classes) appends again unchanged', async () => {
    const from = await freshTable('cjs-from');
    await appendArrow(from, rowsTable(rows(0, 9, () => null)));
    const cjsTable = (await from.query().toArrow()) as unknown as arrow.Table;
    expect(cjsTable instanceof arrow.Table).toBe(false);
    const to = await freshTable('cjs-to');
    await appendArrow(to, cjsTable);
    expect(await stored(to)).toEqual(rows(0, 9, () => null));
  });

  it("LanceDB's own add and mergeInsert (its CommonJS writer) store every row exactly", async () => {
    const table = await freshTable('own');
    await table.add(rowsTable(rows(0, 5, () => null)));
    await table
      .mergeInsert('id')
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute(rowsTable(rows(3, 4, () => null)));
    expect(await stored(table)).toEqual(rows(0, 7, () => null));
  });

  it("the upkeep process's fold merges an all-null boolean column", async () => {
    const dir = join(root, 'upkeep');
    const table = await (await connect(dir)).createEmptyTable('t', SCHEMA);
    await appendArrow(table, rowsTable(rows(0, 4, (i) => i % 2 === 0)));
    const runner = new UpkeepRunner(dir, 't');
    runners.push(runner);
    await runner.fold(rowsTable(rows(1, 2, () => null)));
    expect(await stored(table)).toEqual([
      { id: 'r0', seq: 0, flag: true },
      { id: 'r1', seq: 1, flag: null },
      { id: 'r2', seq: 2, flag: null },
      { id: 'r3', seq: 3, flag: false },
    ]);
  }, 120_000);
});
