import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { JsonValue, Task } from '../../src/core/task.ts';
import { columnValues } from '../../src/store/arrow-codec.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { TASK_COLUMNS } from '../../src/store/task-table.ts';
import { fitColumns, hasLegacyLayout, timeLiteral, timeReader } from '../../src/store/typed-columns.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp } from './experience-fixtures/make.ts';

/**
 * Issue #13 item 3: chat turns, features, meta/info and run summaries are typed in LanceDB
 * (list<struct>, map<string, double>, JSON), times are timestamps; tables written before keep
 * their layout and stay readable and writable.
 */
const root = tempDir('winnow-typed-');

const task = (i: number, extra: Partial<Task> = {}): Task => ({
  id: `t${i}`,
  taskset: 'demo',
  prompt: `What is ${i}+${i}?`,
  answer: String(2 * i),
  features: { difficulty: i / 10, ...(i % 2 === 0 ? { even: 1 } : {}) },
  meta: { n: i, tags: ['a', String(i)], nested: { ok: i > 1 } },
  source: { file: '/data/x.jsonl', row: i + 1 },
  ...extra,
});

/** `name: type` of each field, as the stored table (or a query) reports it. */
const typesOf = (schema: arrow.Schema) =>
  Object.fromEntries(
    schema.fields.map((f) => {
      const ext = f.metadata.get('ARROW:extension:name');
      return [f.name, `${f.type}${ext ? ` <${ext}>` : ''}`];
    }),
  );

async function rawTable(db: string, name: string) {
  return (await lancedb.connect(db)).openTable(name);
}

describe('the typed task table', () => {
  it('stores chat turns, features, meta and times as typed columns and reads them back exactly', async () => {
    const db = join(root, 'tasks');
    const store = await TaskStore.open(db);
    const chat = task(3, {
      prompt: undefined,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '3+3?' },
      ],
    });
    const tasks = [task(0), task(1), task(2), chat];
    expect(await store.write(tasks, 'r1')).toMatchObject({ inserted: 4 });

    const table = await rawTable(db, 'tasks');
    const stored = typesOf(await table.schema());
    expect(stored).toMatchObject({
      messages: 'List<Struct<{role:Utf8, content:Utf8}>>',
      features: 'Map<{key:Utf8, value:Float64}>',
      meta: 'LargeBinary <lance.json>',
      updated_at: 'Timestamp<MILLISECOND, UTC>',
    });
    // A query serves JSON back as Arrow's canonical JSON extension type.
    expect(typesOf((await table.query().limit(1).toArrow()).schema).meta).toBe('Utf8 <arrow.json>');

    const back = (await store.read()).sort((a, b) => a.id.localeCompare(b.id));
    expect(back).toEqual(tasks);
    expect(await store.write(tasks, 'r2')).toMatchObject({ inserted: 0, updated: 0, unchanged: 4 });
  });

  it('typed columns answer SQL filters: map keys, JSON paths, timestamps', async () => {
    const db = join(root, 'filters');
    const store = await TaskStore.open(db);
    const before = Date.now() - 1;
    await store.write([task(0), task(1), task(2), task(3), task(4)], 'r1');
    const table = await rawTable(db, 'tasks');
    const ids = async (where: string) =>
      (await table.query().where(where).select(['id']).toArray()).map((r) => String(r.id)).sort();
    expect(await ids("map_extract(features, 'difficulty')[1] >= 0.3")).toEqual(['t3', 't4']);
    expect(await ids("map_extract(features, 'even')[1] = 1")).toEqual(['t0', 't2', 't4']);
    expect(await ids("json_get_float(meta, 'n') < 2")).toEqual(['t0', 't1']);
    expect(await ids("json_extract(meta, '$.nested.ok') = 'true'")).toEqual(['t2', 't3', 't4']);
    const updatedAt = TASK_COLUMNS.find((c) => c.name === 'updated_at');
    expect(await ids(`updated_at > ${timeLiteral(updatedAt, before)}`)).toHaveLength(5);
    expect(await ids(`updated_at > ${timeLiteral(updatedAt, Date.now() + 60_000)}`)).toEqual([]);
  });

  it('round-trips any features, meta and chat turns (property)', async () => {
    const db = join(root, 'prop');
    const store = await TaskStore.open(db);
    const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
    const message = fc.record({
      role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const),
      content: fc.string(),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 6 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          { maxKeys: 4 },
        ),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), json, { maxKeys: 3 }),
        fc.option(fc.array(message, { minLength: 1, maxLength: 3 }), { nil: undefined }),
        async (features, meta, messages) => {
          const t: Task = { id: `p${n++}`, taskset: 'prop', prompt: 'q', features, meta, messages };
          await store.write([t], 'r');
          const [back] = await store
            .read({ taskset: 'prop' })
            .then((all) => all.filter((x) => x.id === t.id));
          // -0 is stored as a double and comes back as 0 from JSON; compare as JSON does.
          expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(t)));
        },
      ),
      { numRuns: 25, seed: 13 },
    );
  });
});

describe('how a task table is appended to', () => {
  it('the typed layout: its own IPC file to LanceDB’s native add; an older layout: Table.add, which fits it', async () => {
    const typedDb = join(root, 'append-typed');
    const typed = await TaskStore.open(typedDb);
    typed.table.add = () => Promise.reject(new Error('Table.add was called'));
    const first = await typed.write([task(0), task(1)], 'r1', { append: true });
    expect(first).toMatchObject({ inserted: 2, version: await typed.table.version() });
    expect((await typed.read()).map((t) => t.id).sort()).toEqual(['t0', 't1']);

    const legacyDb = join(root, 'append-legacy');
    const utf8 = new arrow.Utf8();
    const legacy = new arrow.Schema(
      TASK_COLUMNS.map(
        (c) =>
          new arrow.Field(c.name, ['features', 'meta'].includes(c.name) ? utf8 : c.type, c.nullable ?? false),
      ),
    );
    await (await lancedb.connect(legacyDb)).createEmptyTable('tasks', legacy);
    const old = await TaskStore.open(legacyDb);
    const add = old.table.add.bind(old.table);
    let adds = 0;
    old.table.add = (...args: Parameters<typeof add>) => {
      adds++;
      return add(...args);
    };
    await old.write([task(2)], 'r1', { append: true });
    expect(adds).toBe(1);
    expect((await old.read()).map((t) => t.features)).toEqual([{ difficulty: 0.2, even: 1 }]);
  });
});

describe('time cells no Date can hold (another tool wrote them)', () => {
  it('read as NaN, not a TypeError: timestamps past 2^53 ms and float milliseconds past the Date range', () => {
    const ms = arrow.makeData({
      type: new arrow.TimestampMillisecond('UTC'),
      length: 4,
      nullCount: 1,
      nullBitmap: Uint8Array.of(0b1011),
      data: BigInt64Array.of(2n ** 60n, 5n, 0n, -(2n ** 61n)) as unknown as Int32Array,
    });
    const float = arrow.makeData({
      type: new arrow.Float64(),
      length: 4,
      data: Float64Array.of(1e300, 7, 0, -1),
    });
    const table = new arrow.Table({ at: arrow.makeVector(ms), old_at: arrow.makeVector(float) });
    expect(columnValues(table, 'at')).toEqual([Number.NaN, 5, null, Number.NaN]);
    const read = timeReader(table.getChild('old_at'));
    expect([0, 1, 2, 3].map(read)).toEqual([Number.NaN, 7, 0, -1]);
    expect(timeReader(null)(0)).toBeNull();
  });
});

describe('tables written before the typed layout', () => {
  const utf8 = new arrow.Utf8();
  const legacyType = (f: arrow.Field) =>
    ['messages', 'features', 'meta'].includes(f.name)
      ? utf8
      : f.name.endsWith('_at')
        ? new arrow.Float64()
        : f.type;

  it('keep their layout: read and written as before, nothing rewritten', async () => {
    const db = join(root, 'legacy');
    const legacy = new arrow.Schema(
      TASK_COLUMNS.map(
        (c) => new arrow.Field(c.name, legacyType(new arrow.Field(c.name, c.type)), c.nullable ?? false),
      ),
    );
    expect(hasLegacyLayout(TASK_COLUMNS, legacy)).toBe(true);
    const fitted = fitColumns(TASK_COLUMNS, legacy);
    expect(fitted.map((c) => `${c.name}:${c.type}`)).toContain('features:Utf8');
    expect(fitted.map((c) => `${c.name}:${c.type}`)).toContain('updated_at:Float64');

    await (await lancedb.connect(db)).createEmptyTable('tasks', legacy);
    const store = await TaskStore.open(db);
    const tasks = [task(0), task(3, { messages: [{ role: 'user', content: 'hi' }] })];
    await store.write(tasks, 'r1');
    expect(await store.write(tasks, 'r2')).toMatchObject({ unchanged: 2 });
    expect((await store.read()).sort((a, b) => a.id.localeCompare(b.id))).toEqual(tasks);
    const raw = await rawTable(db, 'tasks');
    expect(typesOf(await raw.schema())).toMatchObject({
      features: 'Utf8',
      meta: 'Utf8',
      updated_at: 'Float64',
    });
    const row = (await raw.query().where("id = 't0'").toArray())[0]!;
    expect(JSON.parse(String(row.features))).toEqual({ difficulty: 0, even: 1 });
  });
});

describe('the typed experience and run tables', () => {
  it('experiences: chat turns typed, info JSON, times timestamps; sampled back exactly', async () => {
    const db = join(root, 'exps');
    const buf = await ExperienceBuffer.open(db, { table: 'buf' });
    const createdAt = Date.UTC(2026, 10, 24, 12, 0, 0);
    const rows = [
      exp('e1', { createdAt, info: { judge: { score: 0.5 }, tags: ['x'] } }),
      exp('e2', {
        createdAt,
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
      }),
    ];
    await buf.write(rows);
    const table = await rawTable(db, 'buf');
    expect(typesOf(await table.schema())).toMatchObject({
      messages: 'List<Struct<{role:Utf8, content:Utf8}>>',
      info: 'LargeBinary <lance.json>',
      created_at: 'Timestamp<MILLISECOND, UTC>',
      last_used_at: 'Timestamp<MILLISECOND, UTC>',
    });
    const unused = await table.query().where('last_used_at IS NULL').select(['id']).toArray();
    expect(unused.map((r) => String(r.id)).sort()).toEqual(['e1', 'e2']);
    const all = await buf.read();
    const byId = new Map(all.map((e) => [e.id, e]));
    expect(byId.get('e1')?.info).toEqual({ judge: { score: 0.5 }, tags: ['x'] });
    expect(byId.get('e1')?.createdAt).toBe(createdAt);
    expect(byId.get('e2')?.messages).toEqual(rows[1]!.messages);
    await buf.close();
  });

  it('runs: summary is JSON, started/finished are timestamps (null while running)', async () => {
    const db = join(root, 'runs');
    const runs = await RunTable.open(db);
    const record = {
      runId: 'r1',
      kind: 'rft',
      name: 'demo',
      configHash: 'h',
      seed: 1,
      status: 'running' as const,
      startedAt: Date.UTC(2026, 10, 24),
      finishedAt: 0,
      tableVersion: 1,
      summary: JSON.stringify({ steps: [{ step: 1, reward: 0.5 }] }),
    };
    await runs.put(record);
    const raw = await rawTable(db, 'runs');
    expect(typesOf(await raw.schema())).toMatchObject({
      summary: 'LargeBinary <lance.json>',
      started_at: 'Timestamp<MILLISECOND, UTC>',
      finished_at: 'Timestamp<MILLISECOND, UTC>',
    });
    expect((await raw.query().where('finished_at IS NULL').toArray()).length).toBe(1);
    // Lance keeps JSON as binary JSON: the same value, keys in its own (sorted) order.
    const back = await runs.get('r1');
    expect({ ...back, summary: JSON.parse(back!.summary) }).toEqual({
      ...record,
      summary: JSON.parse(record.summary),
    });
    expect(back!.summary).toBe('{"steps":[{"reward":0.5,"step":1}]}');
  });

  it('runs: any seed a config takes is recorded exactly; a table that kept int32 seeds refuses a wider one', async () => {
    const record = (runId: string, seed: number) => ({
      runId,
      kind: 'tasks',
      name: 'demo',
      configHash: 'h',
      seed,
      status: 'completed' as const,
      startedAt: Date.UTC(2026, 10, 27),
      finishedAt: Date.UTC(2026, 10, 27, 1),
      tableVersion: 2,
      summary: '{}',
    });
    const db = join(root, 'seeds');
    const runs = await RunTable.open(db);
    const seeds = [0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53 - 1)];
    for (const [i, seed] of seeds.entries()) await runs.put(record(`r${i}`, seed));
    expect(typesOf(await (await rawTable(db, 'runs')).schema())).toMatchObject({ seed: 'Float64' });
    expect((await runs.list()).map((r) => r.seed).sort((a, b) => a - b)).toEqual(
      [...seeds].sort((a, b) => a - b),
    );

    // A runs table made before (seed int32) keeps its layout: seeds within int32 as before, a wider one refused.
    const old = join(root, 'seeds-int32');
    const schema = (await (await rawTable(db, 'runs')).schema()).fields.map((f) =>
      f.name === 'seed' ? new arrow.Field('seed', new arrow.Int32(), f.nullable) : f,
    );
    await (await lancedb.connect(old)).createEmptyTable('runs', new arrow.Schema(schema));
    const oldRuns = await RunTable.open(old);
    await oldRuns.put(record('a', 2 ** 31 - 1));
    await oldRuns.put(record('b', -(2 ** 31)));
    const wide =
      "table 'runs' stores seeds as 32-bit integers (made by an older Winnow): seed 2147483648 would be recorded wrapped; use a seed within ±2^31, or another database folder (--db)";
    await expect(oldRuns.put(record('c', 2 ** 31))).rejects.toThrow(wide);
    await expect(RunTable.checkSeedIn(old, 2 ** 31)).rejects.toThrow(wide);
    await expect(RunTable.checkSeedIn(old, 2 ** 31 - 1)).resolves.toBeUndefined();
    await expect(RunTable.checkSeedIn(db, 2 ** 40)).resolves.toBeUndefined();
    await expect(RunTable.checkSeedIn(join(root, 'no-such-db'), 2 ** 40)).resolves.toBeUndefined();
    expect(typesOf(await (await rawTable(old, 'runs')).schema())).toMatchObject({ seed: 'Int32' });
    expect((await oldRuns.list()).map((r) => [r.runId, r.seed])).toEqual([
      ['a', 2 ** 31 - 1],
      ['b', -(2 ** 31)],
    ]);
  });
});
