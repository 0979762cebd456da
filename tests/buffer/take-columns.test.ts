import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-take-columns-');

/** Record the columns of every `takeRowIds` the buffer's table makes. */
function recordTakes(buf: ExperienceBuffer): string[][] {
  const calls: string[][] = [];
  const table = buf.table;
  const take = table.takeRowIds.bind(table);
  table.takeRowIds = (ids) => {
    const q = take(ids);
    const select = q.select.bind(q);
    q.select = (cols) => {
      calls.push([...(cols as string[])].sort());
      return select(cols);
    };
    return q;
  };
  return calls;
}

describe('take by row id', () => {
  it('skips the identity columns for row ids read from the table, and reads them for predicted ones', async () => {
    // The LanceDB payload take (the row store off: WINNOW_ROW_STORE=off).
    process.env.WINNOW_ROW_STORE = 'off';
    onTestFinished(() => {
      delete process.env.WINNOW_ROW_STORE;
    });
    const db = freshDb(root);
    const cfg = { sampler: { type: 'lifo' }, seed: 2 } as const;
    const first = await ExperienceBuffer.open(db, cfg);
    await first.write(['a', 'b', 'c', 'd'].map((id) => exp(id)));
    await first.close();

    const buf = await ExperienceBuffer.open(db, cfg);
    const calls = recordTakes(buf);
    const s1 = await buf.sample(2, { step: 1 });
    expect(s1.experiences.map((e) => [e.id, e.response, e.tokens])).toEqual(
      ['d', 'c'].map((id) => [id, exp(id).response, exp(id).tokens]),
    );
    expect(calls).toEqual([['logprobs', 'prompt', 'response', 'tokens']]);

    // Rows written by this buffer have predicted row ids: their take checks id and seq.
    await buf.write(['e', 'f'].map((id) => exp(id)));
    const s2 = await buf.sample(2, { step: 2 });
    expect(s2.experiences.map((e) => [e.id, e.response])).toEqual([
      ['f', 'response f'],
      ['e', 'response e'],
    ]);
    expect(calls.at(-1)).toEqual(['id', 'logprobs', 'prompt', 'response', 'seq', 'tokens']);
    await buf.close();
  });

  it('with the row store, reads no payload column: only the row ids, plus id and seq for predicted ones', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'lifo' }, seed: 2 } as const;
    const first = await ExperienceBuffer.open(db, cfg);
    await first.write(['a', 'b', 'c', 'd'].map((id) => exp(id)));
    await first.close();

    const buf = await ExperienceBuffer.open(db, cfg);
    const calls = recordTakes(buf);
    const s1 = await buf.sample(2, { step: 1 });
    expect(s1.experiences).toEqual(['d', 'c'].map((id) => ({ ...exp(id), useCount: 1 })));
    expect(calls).toEqual([[]]);
    await buf.write(['e', 'f'].map((id) => exp(id)));
    const s2 = await buf.sample(2, { step: 2 });
    expect(s2.experiences).toEqual(['f', 'e'].map((id) => ({ ...exp(id), useCount: 1 })));
    // The first append after open confirms its predicted row ids (id, seq), then the sample checks them.
    expect(calls).toEqual([[], ['id', 'seq'], ['id', 'seq']]);
    await buf.close();
  });

  it('a row deleted by another process after open is reported missing, never replaced by another row', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 2 } as const;
    const first = await ExperienceBuffer.open(db, cfg);
    await first.write(['a', 'b', 'c'].map((id) => exp(id)));
    await first.close();
    const buf = await ExperienceBuffer.open(db, cfg);
    // Another process deletes 'a' and appends a row (Lance gives it a new row id, never a reused one).
    const other = await (await lancedb.connect(db)).openTable('experiences');
    await other.delete("id = 'a'");
    await other.add(
      await other
        .query()
        .where("id = 'b'")
        .toArrow()
        .then((t) => t),
    );
    await expect(buf.sample(3, { step: 1 })).rejects.toThrow(
      'experiences: 1 sampled row(s) are no longer in the table (first: id a); was it changed by another process?',
    );
    await buf.close();
  });
});
