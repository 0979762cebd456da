import { afterAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../../src/buffer/experience-config.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * Issue 42: the samplers that read sequence entropies (exgrpo, repo's `entropy` strategy) must see
 * the same entropies in the process that wrote the rows and in a process that reopened the buffer.
 * The table stores log-probs as float32; an entropy computed at write time from the explorer's
 * float64 values could order two rollouts differently from the one rebuilt from the stored values
 * on reopen, so a resumed run replayed another rollout than the uninterrupted run.
 * Here q_0 and q_1 differ only below float32 precision: their stored log-probs are equal, so both
 * processes must see a tie (and take the newest, q_1).
 */
const root = tempDir('winnow-replay-entropy-');
const open: ExperienceBuffer[] = [];
afterAll(async () => {
  for (const b of open) await b.close().catch(() => undefined);
});

const twin = (id: string, lp: number, reward: number): Experience =>
  exp(id, { taskId: 'Q', groupId: 'q', reward, advantage: reward - 0.5, logprobs: [lp, lp, lp] });
// Equal once stored as float32 (Math.fround(-0.1) === Math.fround(-0.1000000001)), unequal as float64.
const rows = [twin('q_0', -0.1, 1), twin('q_1', -0.1000000001, 1), twin('q_2', -1, 0), twin('q_3', -1, 0)];

/** Step 1 trains the fresh group; step 2 replays. `reopen` reopens the buffer between them (a restart). */
async function replayed(sampler: ExperienceBufferConfigInput['sampler'], reopen: boolean): Promise<string[]> {
  const db = freshDb(root);
  let buf = await ExperienceBuffer.open(db, { sampler, seed: 5 });
  open.push(buf);
  await buf.write(rows);
  expect((await buf.sample(4, { step: 1 })).experiences.map((e) => e.id)).toEqual([
    'q_0',
    'q_1',
    'q_2',
    'q_3',
  ]);
  await buf.ack(1);
  if (reopen) {
    await buf.close();
    buf = await ExperienceBuffer.open(db, { sampler, seed: 5 });
    open.push(buf);
  }
  await buf.write(
    [twin('r_0', -2, 1), twin('r_1', -2, 0), twin('r_2', -2, 1), twin('r_3', -2, 0)].map((e) => ({
      ...e,
      groupId: 'r',
    })),
  );
  return (await buf.sample(6, { step: 2 })).experiences.filter((e) => e.useCount > 1).map((e) => e.id);
}

describe('sequence entropies are the same before and after a reopen', () => {
  it('exgrpo replays the same lowest-entropy trajectory (ties: newest) in the writing process and after a restart', async () => {
    const sampler = { type: 'exgrpo', params: { bucketStd: 0, replayShare: 0.5 } };
    expect(await replayed(sampler, false)).toEqual(['q_1']);
    expect(await replayed(sampler, true)).toEqual(['q_1']);
  });

  it('repo with the entropy strategy retrieves in the same order in the writing process and after a restart', async () => {
    const sampler = { type: 'repo', params: { strategy: 'entropy', offPolicyPerPrompt: 2 } };
    expect(await replayed(sampler, false)).toEqual(['q_1', 'q_0']);
    expect(await replayed(sampler, true)).toEqual(['q_1', 'q_0']);
  });
});
