import { afterAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../../src/buffer/experience-config.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * Issue 42: each replay method's selection rule on a hand-computed buffer (exact ids and order),
 * and a kill-and-resume run that delivers the same leases and batches as an uninterrupted one.
 */
const root = tempDir('winnow-replay-methods-');
const open: ExperienceBuffer[] = [];
afterAll(async () => {
  for (const b of open) await b.close().catch(() => undefined);
});

/** A rollout of `task` in `group`: 3 response tokens, each with log-prob −h (so its sequence entropy is h). */
function row(id: string, task: string, group: string, reward: number, h = 1, advantage = 0.5): Experience {
  return exp(id, { taskId: task, groupId: group, reward, advantage, logprobs: [-h, -h, -h] });
}

/** `rewards[i]` and `entropies[i]` for ids `<group>_<i>`. */
function group(task: string, name: string, rewards: number[], entropies: number[] = []): Experience[] {
  return rewards.map((r, i) => row(`${name}_${i}`, task, name, r, entropies[i] ?? 1));
}

async function openBuffer(
  db: string,
  sampler: ExperienceBufferConfigInput['sampler'],
): Promise<ExperienceBuffer> {
  const b = await ExperienceBuffer.open(db, { sampler, seed: 7 });
  open.push(b);
  return b;
}

const ids = (r: { experiences: Experience[] }) => r.experiences.map((e) => e.id);

/** ExGRPO's hand-computed buffer: tasks in every accuracy bucket (window 8, threshold 1). */
const exgrpoStep1 = [
  ...group('A', 'a', [1, 0, 0, 0], [0.5, 1, 1, 1]), // 1/4: low
  ...group('B', 'b', [1, 1, 0, 0], [0.9, 0.3, 1, 1]), // 2/4: medium; lowest-entropy correct: b_1
  ...group('C', 'c', [1, 1, 1, 0], [0.2, 0.4, 0.2, 0.1]), // 3/4: medium; c_0 and c_2 tie (0.2): newest, c_2
  ...group('D', 'd', [1, 1, 1, 1]), // solved: never replayed
  ...group('E', 'e', [0, 0, 0, 0]), // unsolved: nothing to replay
  ...group('F', 'f', [1, 1, 1, 1, 1, 1, 1, 0], [0.6, 0.6, 0.6, 0.1, 0.6, 0.6, 0.6, 0.05]), // 7/8: high; f_3
];
const EXGRPO = { type: 'exgrpo', params: { accuracyWindow: 8, bucketStd: 0, replayShare: 0.5 } };

describe('exgrpo', () => {
  it('fresh rollouts first, then the lowest-entropy correct trajectory per question: medium, low, high', async () => {
    const buf = await openBuffer(freshDb(root), EXGRPO);
    await buf.write(exgrpoStep1);
    const s1 = await buf.sample(28, { step: 1 });
    expect(ids(s1)).toEqual(exgrpoStep1.map((e) => e.id)); // nothing trained yet: all fresh, oldest first
    await buf.ack(1);
    await buf.write(group('G', 'g', [1, 0, 1, 0], [0.7, 1, 0.4, 1]));
    const s2 = await buf.sample(8, { step: 2 });
    // 4 fresh (G) + 4 replayed: medium C (newer question) and B, then low A, then high F.
    expect(ids(s2)).toEqual(['g_0', 'g_1', 'g_2', 'g_3', 'c_2', 'b_1', 'a_0', 'f_3']);
    expect(s2.experiences.map((e) => e.useCount)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    await buf.ack(2);
    // No fresh rows left: the whole batch is replay. G (2/4, medium, newest question) comes first.
    const s3 = await buf.sample(4, { step: 3 });
    expect(ids(s3)).toEqual(['g_2', 'c_2', 'b_1', 'a_0']);
  });
});

/** RePO's hand-computed buffer: prompt P has two past groups (p0 uniform, p1 mixed), Q one. */
const repoStep1 = [
  ...group('P', 'p0', [1, 1, 1, 1], [0.5, 0.5, 0.5, 0.5]),
  ...group('P', 'p1', [1, 0, 1, 0], [0.9, 0.2, 0.8, 0.3]),
  ...group('Q', 'q1', [0, 0, 1, 0], [0.4, 0.1, 0.6, 0.2]),
];
const repoStep2 = [...group('P', 'p2', [1, 1, 0, 0]), ...group('Q', 'q2', [1, 0, 0, 0])];

async function repoBatch(strategy: string): Promise<Experience[]> {
  const buf = await openBuffer(freshDb(root), {
    type: 'repo',
    params: { strategy, offPolicyPerPrompt: 2 },
  });
  await buf.write(repoStep1);
  expect(ids(await buf.sample(12, { step: 1 }))).toEqual(repoStep1.map((e) => e.id));
  await buf.ack(1);
  await buf.write(repoStep2);
  return (await buf.sample(12, { step: 2 })).experiences;
}

describe('repo', () => {
  const expected: Record<string, string[]> = {
    // each fresh group, then 2 past rollouts of the same prompt
    recency: ['p1_3', 'p1_2', 'q1_3', 'q1_2'],
    reward: ['p1_2', 'p1_0', 'q1_2', 'q1_3'], // P: eight rows at reward 1, newest two; Q: q1_2, then the newest 0
    variance: ['p1_0', 'p1_1', 'q1_0', 'q1_1'], // P: p1 (variance 0.25) before p0 (0)
    entropy: ['p1_1', 'p1_3', 'q1_1', 'q1_3'],
  };
  for (const [strategy, off] of Object.entries(expected))
    it(`strategy ${strategy}: each fresh group followed by its prompt's retrieved rows`, async () => {
      const batch = await repoBatch(strategy);
      expect(batch.map((e) => e.id)).toEqual([
        'p2_0',
        'p2_1',
        'p2_2',
        'p2_3',
        off[0],
        off[1],
        'q2_0',
        'q2_1',
        'q2_2',
        'q2_3',
        off[2],
        off[3],
      ]);
      expect(batch.map((e) => e.useCount)).toEqual([1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 2]);
    });

  it('advantages: fresh rows keep theirs, off-policy rows are normalised among their prompt’s off-policy rows', async () => {
    const batch = await repoBatch('variance');
    // fresh: the stored 0.5; P off-policy rewards [1, 0] → ±1/(0.5 + 1e-6)·0.5; Q off-policy [0, 0] → 0
    expect(batch.map((e) => Number(e.advantage.toFixed(5)))).toEqual([
      0.5, 0.5, 0.5, 0.5, 1, -1, 0.5, 0.5, 0.5, 0.5, 0, 0,
    ]);
  });

  it('strategy random: seeded, drawn from the same prompt', async () => {
    const a = await repoBatch('random');
    const b = await repoBatch('random');
    expect(a.map((e) => e.id)).toEqual(b.map((e) => e.id));
    expect(a.slice(4, 6).every((e) => e.taskId === 'P' && e.useCount === 2)).toBe(true);
    expect(a.slice(10, 12).every((e) => e.taskId === 'Q' && e.useCount === 2)).toBe(true);
  });

  it('an unknown strategy names the key and the closest names', async () => {
    await expect(
      ExperienceBuffer.open(freshDb(root), { sampler: { type: 'repo', params: { strategy: 'rewards' } } }),
    ).rejects.toThrow(/buffer\.sampler\.params\.strategy.*'reward'/);
  });
});

describe('dots_replay', () => {
  it('fresh rows, then past rows drawn from the newest `window` rows with a non-zero advantage, newest first', async () => {
    const buf = await openBuffer(freshDb(root), {
      type: 'dots_replay',
      params: { window: 5, replayShare: 0.5 },
    });
    const adv = [1, 1, 1, 0, 1, 1];
    await buf.write(adv.map((a, i) => row(`x${i}`, `t${i}`, `gx${i}`, 1, 1, a)));
    expect(ids(await buf.sample(6, { step: 1 }))).toEqual(['x0', 'x1', 'x2', 'x3', 'x4', 'x5']);
    await buf.ack(1);
    await buf.write([row('y0', 'ty', 'gy', 1), row('y1', 'ty', 'gy', 0)]);
    // window: x3 x4 x5 y0 y1; x3 has advantage 0, y0/y1 are fresh → the pool is {x4, x5}
    expect(ids(await buf.sample(4, { step: 2 }))).toEqual(['y0', 'y1', 'x5', 'x4']);
  });
});

/** One run: steps 1..3, acknowledging each; `kill` abandons the buffer after step 2's sample (no ack, no close). */
async function run(
  sampler: ExperienceBufferConfigInput['sampler'],
  rows: Experience[][],
  sizes: number[],
  kill: boolean,
): Promise<{ batches: string[][]; uses: [string, number][] }> {
  const db = freshDb(root);
  let buf = await openBuffer(db, sampler);
  const batches: string[][] = [];
  for (let step = 1; step <= sizes.length; step++) {
    if (rows[step - 1]) await buf.write(rows[step - 1]!);
    const r = await buf.sample(sizes[step - 1]!, { step });
    if (kill && step === 2) {
      // The trainer dies before its step-2 checkpoint: a new process reopens and resumes from step 1.
      buf = await openBuffer(db, sampler);
      await buf.recover(1);
      const again = await buf.sample(sizes[1]!, { step: 2 });
      expect(again.experiences.map((e) => [e.id, e.useCount, e.advantage])).toEqual(
        r.experiences.map((e) => [e.id, e.useCount, e.advantage]),
      );
    }
    batches.push(ids(r));
    await buf.ack(step);
  }
  return { batches, uses: buf.bookkeeping().map((b) => [b.id, b.useCount]) };
}

describe('kill and resume', () => {
  const cases: [string, ExperienceBufferConfigInput['sampler'], Experience[][], number[]][] = [
    ['exgrpo', EXGRPO, [exgrpoStep1, group('G', 'g', [1, 0, 1, 0])], [28, 8, 4]],
    [
      'repo',
      { type: 'repo', params: { strategy: 'random', offPolicyPerPrompt: 2 } },
      [repoStep1, repoStep2, group('P', 'p3', [0, 1, 0, 1])],
      [12, 12, 6],
    ],
    [
      'dots_replay',
      { type: 'dots_replay', params: { window: 8 } },
      [exgrpoStep1.slice(0, 12), exgrpoStep1.slice(12, 16)],
      [12, 6, 4],
    ],
  ];
  for (const [name, sampler, rows, sizes] of cases)
    it(`${name}: a resumed run delivers the same batches and use counts as an uninterrupted one`, async () => {
      const straight = await run(sampler, rows, sizes, false);
      const resumed = await run(sampler, rows, sizes, true);
      expect(resumed).toEqual(straight);
      expect(straight.batches.map((b) => b.length)).toEqual(sizes);
    });
});
