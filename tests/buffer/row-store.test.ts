import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { encodeExperiences } from '../../src/buffer/storage/experience-table.ts';
import { PayloadRows, ROW_STORE_DATA, ROW_STORE_INDEX } from '../../src/buffer/storage/payload-rows.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-row-store-');

/** Rows of every payload shape: the store serves the plain ones, LanceDB the others. */
function mixed(): Experience[] {
  return [
    exp('plain', {
      tokens: [1, 2, 3, 4, 5],
      promptLength: 2,
      logprobs: [0.1, -1 / 3, -2.5],
      actionMask: [1, 1, 1],
    }),
    exp('no-prompt', { prompt: undefined }),
    exp('unicode', { response: 'Grüße — 数学 ✓', prompt: 'Σ 1..n = ?' }),
    exp('empty', { tokens: [], promptLength: 0, logprobs: [], actionMask: [], response: '' }),
    exp('info', { info: { b: 1, a: 'x' } }),
    exp('messages', { messages: [{ role: 'user', content: 'hi' }] }),
    exp('advantages', { advantages: [0.5, -0.25, 0.125] }),
    exp('mask', { actionMask: [0, 1, 0] }),
    exp('big', { tokens: Array.from({ length: 300 }, (_, j) => 31_999 - j), promptLength: 100 }),
  ];
}

/** Every row, fifo, in one sample; JSON keeps key order, so equal text means equal objects built alike. */
async function sampleAll(db: string, fresh: Experience[] | null, reopen: boolean): Promise<string> {
  const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
  let buf = await ExperienceBuffer.open(db, cfg);
  if (fresh) await buf.write(fresh);
  if (reopen) {
    await buf.close();
    buf = await ExperienceBuffer.open(db, cfg);
  }
  const got = await buf.sample(100, { step: 1 });
  await buf.close();
  return JSON.stringify(got.experiences);
}

/** What a sample returns for rows written as `rows` (logprobs stored as float32, one use). */
function sampled(rows: Experience[]): Experience[] {
  return rows.map((e) => ({ ...e, logprobs: e.logprobs.map(Math.fround), useCount: 1 }));
}

/** The row store writes in the background: wait (up to 5 s) until `file` has `size` bytes. */
async function sizeReaches(file: string, size: number): Promise<number> {
  for (let i = 0; i < 100 && (!existsSync(file) || statSync(file).size < size); i++)
    await new Promise((r) => setTimeout(r, 50));
  return statSync(file).size;
}

function withStoreOff(): void {
  process.env.WINNOW_ROW_STORE = 'off';
  onTestFinished(() => {
    delete process.env.WINNOW_ROW_STORE;
  });
}

describe('row store (row-major payload beside the table)', () => {
  it('returns exactly what the LanceDB take returns, key for key, fresh and after a reopen', async () => {
    const onFresh = await sampleAll(freshDb(root), mixed(), false);
    const onReopened = await sampleAll(freshDb(root), mixed(), true);
    withStoreOff();
    const offFresh = await sampleAll(freshDb(root), mixed(), false);
    const offReopened = await sampleAll(freshDb(root), mixed(), true);
    expect(onFresh).toBe(offFresh);
    expect(onReopened).toBe(offReopened);
    const rows = JSON.parse(onReopened) as Experience[];
    expect(rows.map((r) => r.id)).toEqual(mixed().map((r) => r.id));
    // float32 as stored, the prompt only where the row has one.
    expect(rows[0]!.logprobs).toEqual([Math.fround(0.1), Math.fround(-1 / 3), -2.5]);
    expect(rows[1]!.prompt).toBeUndefined();
    expect(rows[2]!.response).toBe('Grüße — 数学 ✓');
    expect(rows[8]!.tokens).toHaveLength(300);
  });

  it('keeps its files inside the table folder: one record per row, an index entry of 24 bytes each', async () => {
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' } });
    await buf.write(mixed());
    await buf.write([exp('later')]);
    await buf.close();
    const dir = join(db, 'experiences.lance');
    expect(await sizeReaches(join(dir, ROW_STORE_INDEX), 24 * 10)).toBe(24 * 10);
    expect(statSync(join(dir, ROW_STORE_DATA)).size).toBeGreaterThan(300 * 4);
  });

  it('a damaged record or a torn index entry only sends those rows to LanceDB', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
    const first = await ExperienceBuffer.open(db, cfg);
    await first.write(mixed());
    await first.close();
    const dir = join(db, 'experiences.lance');
    expect(await sizeReaches(join(dir, ROW_STORE_INDEX), 24 * 9)).toBe(24 * 9);
    // Overwrite the first record's seq (it no longer matches) and tear the index's tail.
    const fd = openSync(join(dir, ROW_STORE_DATA), 'r+');
    writeSync(fd, Buffer.alloc(8, 0xff), 0, 8, 0);
    closeSync(fd);
    appendFileSync(join(dir, ROW_STORE_INDEX), Buffer.alloc(5, 7));
    const buf = await ExperienceBuffer.open(db, cfg);
    await buf.write([exp('after')]);
    const got = await buf.sample(100, { step: 1 });
    await buf.close();
    expect(got.experiences).toEqual(sampled([...mixed(), exp('after')]));
    // The torn entry was overwritten by the next append's entry.
    expect(await sizeReaches(join(dir, ROW_STORE_INDEX), 24 * 10)).toBe(24 * 10);
  });

  it('a record whose payload bytes changed (same length, header intact) fails its CRC and goes to LanceDB', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
    const first = await ExperienceBuffer.open(db, cfg);
    await first.write(mixed());
    await first.close();
    const dir = join(db, 'experiences.lance');
    expect(await sizeReaches(join(dir, ROW_STORE_INDEX), 24 * 9)).toBe(24 * 9);
    // The last 4 bytes of every record are its last logprob (what an OS crash or another process
    // appending at the same offset could leave different while seq, lengths and id still match).
    const index = readFileSync(join(dir, ROW_STORE_INDEX));
    const fd = openSync(join(dir, ROW_STORE_DATA), 'r+');
    for (let k = 0; k < 9; k++) {
      const end = index.readDoubleLE(k * 24 + 8) + index.readDoubleLE(k * 24 + 16);
      writeSync(fd, Buffer.from([0x00, 0x00, 0x80, 0x7f]), 0, 4, end - 4); // float32 +Infinity
    }
    closeSync(fd);
    const buf = await ExperienceBuffer.open(db, cfg);
    const got = await buf.sample(100, { step: 1 });
    await buf.close();
    expect(got.experiences).toEqual(sampled(mixed()));
    expect(got.experiences.flatMap((e) => e.logprobs)).not.toContain(Number.POSITIVE_INFINITY);
  });

  it('a table written without the row store keeps working; rows written later go to the store', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
    process.env.WINNOW_ROW_STORE = 'off';
    const old = await ExperienceBuffer.open(db, cfg);
    await old.write(mixed());
    await old.close();
    delete process.env.WINNOW_ROW_STORE;
    expect(existsSync(join(db, 'experiences.lance', ROW_STORE_DATA))).toBe(false);
    const buf = await ExperienceBuffer.open(db, cfg);
    await buf.write([exp('new-1'), exp('new-2')]);
    const got = await buf.sample(100, { step: 1 });
    await buf.close();
    expect(got.experiences).toEqual(sampled([...mixed(), exp('new-1'), exp('new-2')]));
    expect(await sizeReaches(join(db, 'experiences.lance', ROW_STORE_INDEX), 24 * 2)).toBe(24 * 2);
  });
});

describe('row store under a capacity', () => {
  /** Rows `from`… as the table stores them (seq = index), in one Arrow table. */
  const stored = (from: number, n: number) =>
    encodeExperiences(
      Array.from({ length: n }, (_, k) => ({
        exp: exp(`s${from + k}`),
        seq: from + k,
        useCount: 0,
        priority: 0,
        lastUsedStep: -1,
        lastUsedAt: 0,
        consumed: false,
      })),
    );
  const ids = (got: ReturnType<PayloadRows['read']>) => got.map((p) => p?.id ?? null);

  it('writes an append at once when nothing is queued; behind a queued rewrite, after it, in order', async () => {
    const saved = PayloadRows.shrinkMin;
    PayloadRows.shrinkMin = 4;
    onTestFinished(() => {
      PayloadRows.shrinkMin = saved;
    });
    const dir = join(freshDb(root), 't.lance');
    mkdirSync(dir, { recursive: true });
    const rows = (await PayloadRows.open(dir))!;
    rows.append(stored(0, 8));
    // Readable as soon as `append` returns: written on this thread.
    expect(ids(rows.read([0, 7]))).toEqual(['s0', 's7']);
    // Rows 2..7 evicted: a rewrite keeping 0 and 1 is queued; the next append waits behind it.
    rows.shrink(2, () => [0, 1]);
    rows.append(stored(8, 2));
    expect(ids(rows.read([8, 9]))).toEqual([null, null]);
    await rows.flushed();
    expect(ids(rows.read([0, 1, 5, 8, 9]))).toEqual(['s0', 's1', null, 's8', 's9']);
    // The chain is empty again: the next append is written at once, after the chained one.
    rows.append(stored(10, 1));
    expect(ids(rows.read([10]))).toEqual(['s10']);
    rows.close();
    await rows.flushed();
    const reopened = (await PayloadRows.open(dir))!;
    expect(ids(reopened.read([0, 1, 5, 8, 9, 10]))).toEqual(['s0', 's1', null, 's8', 's9', 's10']);
    expect(statSync(join(dir, ROW_STORE_INDEX)).size).toBe(5 * 24);
    reopened.close();
  });

  it('is rewritten without the evicted rows once most of it is dead, and samples stay exact', async () => {
    const saved = PayloadRows.shrinkMin;
    PayloadRows.shrinkMin = 8;
    onTestFinished(() => {
      PayloadRows.shrinkMin = saved;
    });
    const db = freshDb(root);
    const buf = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, capacity: 10, seed: 1 });
    const all = Array.from({ length: 60 }, (_, i) => exp(`r${i}`));
    for (let i = 0; i < 60; i += 10) await buf.write(all.slice(i, i + 10));
    const index = join(db, 'experiences.lance', ROW_STORE_INDEX);
    // 60 records were written; after the rewrite the index holds the live rows plus later appends.
    for (let i = 0; i < 100 && statSync(index).size >= 24 * 60; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(statSync(index).size).toBeLessThan(24 * 60);
    await buf.close();
    const again = await ExperienceBuffer.open(db, { sampler: { type: 'fifo' }, capacity: 10, seed: 1 });
    const calls: string[][] = [];
    const take = again.table.takeRowIds.bind(again.table);
    again.table.takeRowIds = (ids) => {
      const q = take(ids);
      const select = q.select.bind(q);
      q.select = (cols) => {
        calls.push([...(cols as string[])]);
        return select(cols);
      };
      return q;
    };
    const got = await again.sample(10, { step: 1 });
    await again.close();
    expect(got.experiences).toEqual(sampled(all.slice(50)));
    // Every row came from the rewritten store: the only take read no column.
    expect(calls).toEqual([[]]);
  });
});
