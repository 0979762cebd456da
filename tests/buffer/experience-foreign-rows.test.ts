import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import type { BadCell } from '../../src/buffer/bad-cell.ts';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { decodeExperiences } from '../../src/buffer/experience-decode.ts';
import { encodeExperiences, type StoredExperience } from '../../src/buffer/experience-table.ts';
import { RejectedStore } from '../../src/buffer/rejected-store.ts';
import { WinnowError } from '../../src/core/errors.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * Issue #10: rows appended to a live experience table from a second connection (another tool, a
 * Python notebook) once made the buffer read one row's payload under another row's id, and the
 * table could not be reopened (`ExperienceSlots.append: seq 6320 is not after 6320`).
 */
const root = tempDir('winnow-foreign-');

const stored = (e: Experience, seq: number): StoredExperience => ({
  exp: e,
  seq,
  useCount: 0,
  priority: 0,
  lastUsedStep: -1,
  lastUsedAt: 0,
  consumed: false,
});

/** A row of ours, with a payload that differs from every other row's. */
const ours = (i: number) =>
  exp(`w${i}`, { reward: i / 10, tokens: Array.from({ length: 3 + (i % 4) }, (_, j) => 100 * i + j) });

/** Every field a sample returns must be the written row's (never another row's under this id). */
function expectSameRow(got: Experience, written: ReadonlyMap<string, Experience>): void {
  const want = written.get(got.id);
  expect(want, `unknown id ${got.id}`).toBeDefined();
  const { useCount: _u, priority: _p, ...rest } = got;
  const { useCount: _wu, priority: _wp, ...wantRest } = want!;
  expect(rest).toEqual(wantRest);
}

describe('rows appended to a live experience table by a second connection', () => {
  it('every sample returns exactly the rows it names, and the table reopens with the right rows and use counts', async () => {
    const db = freshDb(root);
    const config = { table: 'exps', sampler: { type: 'uniform', params: { maxUses: 2 } }, seed: 3 } as const;
    const written = new Map<string, Experience>();
    const uses = new Map<string, number>();
    let buf = await ExperienceBuffer.open(db, config);
    let step = 0;
    const sampleAndCheck = async (n: number, prefix: RegExp) => {
      step++;
      const r = await buf.sample(n, { step });
      for (const e of r.experiences) {
        expect(e.id).toMatch(prefix);
        expectSameRow(e, written);
        uses.set(e.id, (uses.get(e.id) ?? 0) + 1);
      }
      await buf.ack(step);
      return r.experiences.length;
    };
    const write = async (from: number, to: number) => {
      const rows = Array.from({ length: to - from }, (_, k) => ours(from + k));
      for (const e of rows) written.set(e.id, e);
      expect((await buf.write(rows)).written).toBe(rows.length);
    };

    await write(0, 8);
    expect(await sampleAndCheck(4, /^w/)).toBe(4);

    // A second connection appends 4 well-formed rows: two with seqs of their own, one with the
    // seq the buffer will give its next-but-two row, one with the seq of a stored row.
    const other = await lancedb.connect(db, { readConsistencyInterval: 0 });
    const foreign = [
      [exp('f0', { response: 'from python 0', reward: 0.5 }), 100],
      [exp('f1', { response: 'from python 1', reward: 0.25 }), 101],
      [exp('f2', { response: 'from python 2', reward: 0.75 }), 10],
      [exp('f3', { response: 'from python 3', reward: 1 }), 5],
    ] as const;
    for (const [e] of foreign) written.set(e.id, e);
    await (await other.openTable('exps')).add(encodeExperiences(foreign.map(([e, seq]) => stored(e, seq))));

    // The buffer's predicted row ids for its next rows are now taken by the foreign rows.
    for (let k = 0; k < 3; k++) {
      await write(8 + 4 * k, 12 + 4 * k);
      expect(await sampleAndCheck(6, /^w/)).toBe(6);
    }
    // Drain what is left to this session: still only our rows, each exactly itself.
    while ((await sampleAndCheck(8, /^w/)) > 0);
    expect(buf.size).toBe(20);
    await buf.close();

    // Reopened: the foreign rows are indexed under fresh seqs where theirs collided; use counts kept.
    buf = await ExperienceBuffer.open(db, config);
    expect(buf.size).toBe(24);
    expect(buf.stats().rows).toBe(24);
    expect(buf.reconciled.quarantined).toEqual([]);
    // f2 was written before the buffer's own seq 10 (w10), so f2 keeps 10 and w10 moves; f3 collided with w5.
    expect([...buf.reconciled.reseq].sort()).toEqual(['f3', 'w10']);
    const book = new Map(buf.bookkeeping().map((r) => [r.id, r]));
    expect([...book.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [id, r] of book) expect([id, r.useCount]).toEqual([id, uses.get(id) ?? 0]);
    expect(new Set(buf.bookkeeping().map((r) => r.seq)).size).toBe(24);
    expect(buf.stats().acknowledgedUses).toBe([...uses.values()].reduce((a, b) => a + b, 0));

    // Now every row can be delivered, foreign ones included, each as written.
    const delivered = new Set<string>();
    for (;;) {
      step++;
      const r = await buf.sample(5, { step });
      if (r.experiences.length === 0) break;
      for (const e of r.experiences) {
        expectSameRow(e, written);
        delivered.add(e.id);
      }
      await buf.ack(step);
    }
    for (const [e] of foreign) expect(delivered.has(e.id)).toBe(true);
    await buf.close();

    // A third open finds nothing left to reconcile.
    const third = await ExperienceBuffer.open(db, config);
    expect([third.size, third.reconciled.reseq, third.reconciled.quarantined]).toEqual([24, [], []]);
    await third.close();
  });

  it('a foreign row with an id the table already holds is quarantined with table, id and column named', async () => {
    const db = freshDb(root);
    const config = { table: 'dup', sampler: { type: 'fifo' }, runId: 'r7' } as const;
    const buf = await ExperienceBuffer.open(db, config);
    await buf.write([ours(0), ours(1), ours(2)]);
    await buf.close();
    const other = await lancedb.connect(db, { readConsistencyInterval: 0 });
    await (await other.openTable('dup')).add(
      encodeExperiences([
        stored(exp('w1', { response: 'an impostor' }), 7), // an id the table already holds
        stored(exp('x9'), 1), // a seq the table already holds
        stored(exp('y8'), 2.5), // a seq no buffer would write
      ]),
    );
    const again = await ExperienceBuffer.open(db, config);
    expect(again.reconciled).toEqual({ reseq: ['x9', 'y8'], quarantined: ['w1'] });
    const got = (await again.sample(10, { step: 1 })).experiences;
    expect(got.map((e) => [e.id, e.response])).toEqual([
      ['w0', 'response w0'],
      ['w1', 'response w1'],
      ['w2', 'response w2'],
      ['x9', 'response x9'],
      ['y8', 'response y8'],
    ]);
    expect(again.bookkeeping().map((r) => [r.id, r.seq])).toEqual([
      ['w0', 0],
      ['w1', 1],
      ['w2', 2],
      ['x9', 3],
      ['y8', 4],
    ]);
    const rejected = (await (await RejectedStore.open(db)).table.query().toArray()) as Record<
      string,
      unknown
    >[];
    const q = rejected.filter((r) => r.step === 'buffer:foreign-row');
    expect(q.map((r) => [r.file, r.row_id, r.run_id])).toEqual([['dup', 'w1', 'r7']]);
    expect(String(q[0]!.reason)).toBe(
      "table 'dup': column id: id 'w1' (seq 7) is already held by an earlier row; another writer appended it",
    );
    expect(JSON.parse(String(q[0]!.payload)).response).toBe('an impostor');
    expect(await again.table.countRows()).toBe(5);
    await again.close();
  });

  it('a foreign row with a time no Date can hold is quarantined on open, named; a decode records its cell', async () => {
    const db = freshDb(root);
    const config = { table: 'times', sampler: { type: 'fifo' }, runId: 'r8' } as const;
    const buf = await ExperienceBuffer.open(db, config);
    await buf.write([ours(0), ours(1)]);
    await buf.close();
    // Another tool writes int64 milliseconds past 2^53 (apache-arrow's own read throws a TypeError on them).
    const far = encodeExperiences([
      stored(exp('t1', { createdAt: 2 ** 60 }), 2),
      { ...stored(exp('t2'), 3), lastUsedAt: -(2 ** 61) },
      stored(exp('t3', { createdAt: 1_700_000_000_000 }), 4),
    ]);
    const bad: BadCell[] = [];
    const decoded = decodeExperiences(far, { bad, tableName: 'times' });
    expect(decoded.map((r) => [r.exp.id, r.exp.createdAt])).toEqual([['t3', 1_700_000_000_000]]);
    expect(bad.map((c) => [c.id, c.column])).toEqual([
      ['t1', 'created_at'],
      ['t2', 'last_used_at'],
    ]);
    expect(() => decodeExperiences(far, { tableName: 'times' })).toThrow(
      /^table 'times' row 't1': created_at: not a time a JS Date can hold \(epoch milliseconds within ±8640000000000000\)$/,
    );
    const other = await lancedb.connect(db, { readConsistencyInterval: 0 });
    await (await other.openTable('times')).add(far);

    const again = await ExperienceBuffer.open(db, config);
    expect(again.reconciled).toEqual({ reseq: [], quarantined: ['t1', 't2'] });
    expect((await again.sample(10, { step: 1 })).experiences.map((e) => [e.id, e.createdAt])).toEqual([
      ['w0', 0],
      ['w1', 0],
      ['t3', 1_700_000_000_000],
    ]);
    expect((await again.read()).map((e) => e.id)).toEqual(['w0', 'w1', 't3']);
    const rejected = (await (await RejectedStore.open(db)).table.query().toArray()) as Record<
      string,
      unknown
    >[];
    const q = rejected.filter((r) => r.step === 'buffer:foreign-row');
    expect(q.map((r) => [r.file, r.row_id, r.run_id, r.reason])).toEqual([
      [
        'times',
        't1',
        'r8',
        "table 'times': row 't1': column created_at: not a time a JS Date can hold (epoch milliseconds within ±8640000000000000); another writer appended it",
      ],
      [
        'times',
        't2',
        'r8',
        "table 'times': row 't2': column last_used_at: not a time a JS Date can hold (epoch milliseconds within ±8640000000000000); another writer appended it",
      ],
    ]);
    // The record names the row by id and seq (its payload cannot be decoded).
    expect(JSON.parse(String(q[0]!.payload))).toEqual({ id: 't1', seq: 2 });
    expect(await again.table.countRows()).toBe(3);
    await again.close();
  });

  it('a row that still does not match after re-reading the row ids is refused, naming table and ids', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { table: 'swap', sampler: { type: 'fifo' } });
    await buf.write([ours(0), ours(1)]);
    // Another tool rewrites w0's row in place under a different id (same row id, same seq).
    const other = await lancedb.connect(db, { readConsistencyInterval: 0 });
    await (await other.openTable('swap')).update({ where: "id = 'w0'", values: { id: 'zz' } });
    await expect(buf.sample(1, { step: 1 })).rejects.toThrow(WinnowError);
    await expect(buf.sample(1, { step: 2 })).rejects.toThrow(
      /^experience table 'swap': row id 0 holds id 'zz' \(seq 0\), expected id 'w0' \(seq 0\)/,
    );
  });
});
