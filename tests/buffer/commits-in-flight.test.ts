import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { ExperienceSlots } from '../../src/buffer/index/experience-slots.ts';
import { CommitWindow } from '../../src/buffer/storage/commit-window.ts';
import { WRITE_GROUP_ROWS } from '../../src/buffer/storage/write-groups.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-commits-in-flight-');
const rowsOf = (tag: string, n: number) => Array.from({ length: n }, (_, k) => exp(`${tag}${k}`));
type Append = (...a: unknown[]) => Promise<number>;

/** The buffer's storage with its append open to patching (fault injection on the real table). */
function appendOf(buf: ExperienceBuffer): { storage: { appendEncoded: Append }; real: Append } {
  const storage = buf.storage as unknown as { appendEncoded: Append };
  return { storage, real: storage.appendEncoded.bind(storage) };
}

/** The next append fails with 'disk full' after 30 ms (later ones land); returns the undo. */
function failFirstAppend(buf: ExperienceBuffer): () => void {
  const { storage, real } = appendOf(buf);
  let calls = 0;
  storage.appendEncoded = async (...a) => {
    calls++;
    if (calls === 1) {
      await new Promise((r) => setTimeout(r, 30));
      throw new Error('disk full');
    }
    return real(...a);
  };
  return () => {
    storage.appendEncoded = real;
  };
}

/** Index row id of each id (−1: forgotten, read back on the next take). */
function indexRowIds(buf: ExperienceBuffer): Map<string, number> {
  const slots = (buf as unknown as { slots: ExperienceSlots }).slots;
  const out = new Map<string, number>();
  for (let s = 0; s < slots.size; s++) if (slots.alive[s]) out.set(slots.ids[s]!, slots.rowId[s]!);
  return out;
}

/** The row id Lance gave each id. */
async function tableRowIds(buf: ExperienceBuffer): Promise<Map<string, number>> {
  const t = await buf.table.query().select(['id']).withRowId().toArrow();
  const ids = t.getChild('id')!;
  const rids = t.getChild('_rowid')!;
  return new Map(Array.from({ length: t.numRows }, (_, i) => [String(ids.get(i)), Number(rids.get(i))]));
}

describe('CommitWindow', () => {
  const later = () => {
    let open = () => {};
    const p = new Promise<void>((r) => {
      open = r;
    });
    return { p, open };
  };

  it('lets two groups commit side by side, but a write-behind group and the first group after open alone', async () => {
    const w = new CommitWindow();
    const order: string[] = [];
    const a = later();
    // The first group after open: nothing beside it.
    w.start({ ids: new Set(['a']), firstSeq: 0, behind: false }, a.p);
    const roomB = w.room(false).then(() => order.push('b may start'));
    await Promise.resolve();
    expect(order).toEqual([]);
    a.open();
    await roomB;
    const b = later();
    const c = later();
    w.start({ ids: new Set(['b']), firstSeq: 1, behind: false }, b.p);
    // One in flight after the first finished: the next starts beside it.
    await w.room(false);
    w.start({ ids: new Set(['c']), firstSeq: 2, behind: false }, c.p);
    expect(w.size).toBe(2);
    expect(w.oldestFirstSeq(9)).toBe(1);
    expect(w.holdsAny([['x'], ['c']])).toBe(true);
    expect(w.holdsAny([['x', 'a']])).toBe(false);
    const roomD = w.room(false).then(() => order.push('d may start'));
    const behind = w.room(true).then(() => order.push('behind may start'));
    b.open();
    await roomD;
    expect(order).toEqual(['b may start', 'd may start']);
    c.open();
    await behind;
    await w.drained();
    expect(order).toEqual(['b may start', 'd may start', 'behind may start']);
    expect(w.size).toBe(0);
    expect(w.oldestFirstSeq(9)).toBe(9);
  });

  it('a write-behind group in flight keeps every other group out', async () => {
    const w = new CommitWindow();
    await (w.start({ ids: new Set(), firstSeq: 0, behind: false }, Promise.resolve()), w.drained());
    const g = later();
    w.start({ ids: new Set(), firstSeq: 0, behind: true }, g.p);
    let started = false;
    const room = w.room(false).then(() => {
      started = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toBe(false);
    g.open();
    await room;
    expect(started).toBe(true);
  });
});

describe('ExperienceBuffer.write: two commits in flight', () => {
  it('calls of WRITE_GROUP_ROWS rows each land in order of seq, whole, and read back exactly (also after reopen)', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    await buf.write(rowsOf('w', 1));
    const v0 = await buf.version();
    const tags = ['a', 'b', 'c', 'd', 'e'];
    const results = await Promise.all(tags.map((t) => buf.write(rowsOf(t, WRITE_GROUP_ROWS))));
    expect(results.map((r) => r.written)).toEqual(Array(5).fill(WRITE_GROUP_ROWS));
    // One commit per call (each fills a group), whatever order they landed in; a call reports a
    // version that holds its rows (with two in flight, possibly the other one's).
    expect(await buf.version()).toBe(v0 + 5);
    expect(results.every((r) => r.version > v0 && r.version <= v0 + 5)).toBe(true);
    const want = ['w0', ...tags.flatMap((t) => rowsOf(t, WRITE_GROUP_ROWS).map((e) => e.id))];
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual(want.map((id, seq) => [id, seq]));
    expect(buf.stats().inserted).toBe(want.length);
    // Every row, whatever order the appends landed in: each payload is the one written under its id.
    const sampled = await buf.sample(want.length, { step: 1 });
    expect(sampled.experiences.map((e) => e.id)).toEqual(want);
    expect(sampled.experiences.map((e) => e.response)).toEqual(want.map((id) => `response ${id}`));
    expect(sampled.experiences.map((e) => e.tokens)).toEqual(want.map((id) => exp(id).tokens));
    await buf.close();
    const again = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    expect(again.bookkeeping().map((r) => [r.id, r.seq])).toEqual(want.map((id, seq) => [id, seq]));
    await again.close();
  });

  it('an append that lands before one started earlier: seqs stay in call order, the row ids are read back, samples are exact', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write(rowsOf('w', 1));
    const { storage, real } = appendOf(buf);
    let second: Promise<number> | null = null;
    let calls = 0;
    storage.appendEncoded = (...a) => {
      calls++;
      if (calls === 2) {
        second = real(...a);
        return second;
      }
      // The first group's append is handed to LanceDB only once the second's has landed.
      return (async () => {
        while (second === null) await new Promise((r) => setTimeout(r, 1));
        await second;
        return real(...a);
      })();
    };
    const [a, b] = await Promise.all([buf.write(rowsOf('a', WRITE_GROUP_ROWS)), buf.write(rowsOf('b', 5))]);
    storage.appendEncoded = real;
    expect(calls).toBe(2);
    expect(b.version).toBeLessThan(a.version);
    const want = [
      'w0',
      ...rowsOf('a', WRITE_GROUP_ROWS).map((e) => e.id),
      ...rowsOf('b', 5).map((e) => e.id),
    ];
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual(want.map((id, seq) => [id, seq]));
    // Lance numbered b's rows first: the predicted row ids of both groups were forgotten.
    const before = indexRowIds(buf);
    expect(want.slice(1).every((id) => before.get(id) === -1)).toBe(true);
    expect(before.get('w0')).toBe(0);
    const got = await buf.sample(want.length, { step: 1 });
    expect(got.experiences.map((e) => e.id)).toEqual(want);
    expect(got.experiences.map((e) => e.tokens)).toEqual(want.map((id) => exp(id).tokens));
    // The take read them back: each index row id is the one Lance gave the row.
    expect(indexRowIds(buf)).toEqual(await tableRowIds(buf));
    // Later appends are predicted right again.
    await buf.write(rowsOf('z', 3));
    const rows = await tableRowIds(buf);
    const index = indexRowIds(buf);
    expect(['z0', 'z1', 'z2'].map((id) => index.get(id))).toEqual(
      ['z0', 'z1', 'z2'].map((id) => rows.get(id)),
    );
    await buf.close();
  });

  it('a row also written by a group in flight waits for it: a duplicate when it landed, written when it failed', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write(rowsOf('w', 1));
    const restore = failFirstAppend(buf);
    const first = buf.write(rowsOf('a', WRITE_GROUP_ROWS));
    const again = buf.write([exp('a7'), exp('n0')]);
    await expect(first).rejects.toThrow('disk full');
    // a7 was not stored by the failed group: the later call writes it.
    expect(await again).toMatchObject({ written: 2, duplicates: [] });
    const landed = buf.write(rowsOf('b', WRITE_GROUP_ROWS));
    const dup = buf.write([exp('b9'), exp('n1')]);
    expect((await landed).written).toBe(WRITE_GROUP_ROWS);
    expect(await dup).toMatchObject({ written: 1, duplicates: ['b9'] });
    restore();
    const ids = buf.bookkeeping().map((r) => r.id);
    expect(ids.slice(0, 3)).toEqual(['w0', 'a7', 'n0']);
    expect(ids.filter((id) => id === 'b9')).toEqual(['b9']);
    expect(ids.at(-1)).toBe('n1');
    // The failed group's seqs were given back: nothing took seqs after them while it was in flight.
    expect(buf.bookkeeping().map((r) => r.seq)).toEqual(ids.map((_, seq) => seq));
    await buf.close();
  });

  it('a failed append beside a landed one fails only its own calls; the other group keeps its seqs', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write(rowsOf('w', 1));
    const restore = failFirstAppend(buf);
    const failed = buf.write(rowsOf('a', WRITE_GROUP_ROWS));
    failed.catch(() => undefined);
    const beside = await buf.write(rowsOf('b', 3));
    await expect(failed).rejects.toThrow('disk full');
    restore();
    expect(beside.written).toBe(3);
    // b was numbered while a was in flight: a's seqs stay unused.
    expect(buf.bookkeeping().map((r) => [r.id, r.seq])).toEqual([
      ['w0', 0],
      ['b0', 1 + WRITE_GROUP_ROWS],
      ['b1', 2 + WRITE_GROUP_ROWS],
      ['b2', 3 + WRITE_GROUP_ROWS],
    ]);
    expect((await buf.sample(10, { step: 1 })).experiences.map((e) => e.id)).toEqual([
      'w0',
      'b0',
      'b1',
      'b2',
    ]);
    await buf.close();
  });

  it('a sample called while two commits are in flight runs after both, and sees every row', async () => {
    const buf = await ExperienceBuffer.open(freshDb(root), { sampler: { type: 'fifo' } });
    await buf.write(rowsOf('w', 1));
    const writes = [buf.write(rowsOf('a', WRITE_GROUP_ROWS)), buf.write(rowsOf('b', 4))];
    const sample = buf.sample(WRITE_GROUP_ROWS + 5, { step: 1 });
    const got = await sample;
    expect(got.experiences.length).toBe(WRITE_GROUP_ROWS + 5);
    expect(got.experiences.at(-1)!.id).toBe('b3');
    await Promise.all(writes);
    await buf.close();
  });
});
