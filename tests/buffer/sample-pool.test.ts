import { afterAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/** `sample(n, { pool })`: the sampler chooses among the fresh (never delivered) or past rows only. */
const root = tempDir('winnow-sample-pool-');
const open: ExperienceBuffer[] = [];
afterAll(async () => {
  for (const b of open) await b.close().catch(() => undefined);
});

async function buffer(): Promise<ExperienceBuffer> {
  const b = await ExperienceBuffer.open(freshDb(root), {
    sampler: { type: 'version_priority', params: { decay: 0, maxUses: 5 } },
    seed: 1,
  });
  open.push(b);
  await b.write(['r0', 'r1', 'r2', 'r3'].map((id) => exp(id)));
  await b.sample(2, { step: 1 }); // r0, r1 delivered
  await b.ack(1);
  await b.write(['r4'].map((id) => exp(id)));
  return b;
}

const ids = (r: { experiences: { id: string; useCount?: number }[] }) =>
  r.experiences.map((e) => `${e.id}×${e.useCount}`);

describe('sample pool', () => {
  it('fresh: only rows never delivered, in the sampler order', async () => {
    const b = await buffer();
    expect(ids(await b.sample(10, { step: 2, pool: 'fresh' }))).toEqual(['r2×1', 'r3×1', 'r4×1']);
  });

  it('past: only rows delivered before; then, in the same step, the fresh ones are left for a fresh call', async () => {
    const b = await buffer();
    expect(ids(await b.sample(10, { step: 2, pool: 'past' }))).toEqual(['r0×2', 'r1×2']);
    expect(ids(await b.sample(10, { step: 2, pool: 'past' }))).toEqual([]); // leased at this step
    expect(ids(await b.sample(1, { step: 2, pool: 'fresh' }))).toEqual(['r2×1']);
  });

  it('any (the default) is the plain sampler; an unknown pool is refused before anything is leased', async () => {
    const b = await buffer();
    // @ts-expect-error: not a pool
    await expect(b.sample(1, { step: 2, pool: 'old' })).rejects.toThrow(
      /pool must be any, fresh or past, got old/,
    );
    expect(ids(await b.sample(10, { step: 2 })).sort()).toEqual(['r0×2', 'r1×2', 'r2×1', 'r3×1', 'r4×1']);
  });
});
