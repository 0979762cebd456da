import { describe, expect, it } from 'vitest';
import { grpo, maskTruncated, rewardStdFilter } from '../../../src/operators/experience/index.ts';
import { chain, exp, run } from './helpers.ts';

const tokens = [11, 12, 21, 22, 23];

describe('mask_truncated', () => {
  it('zeroes the response-layout mask of truncated rollouts only, counting rows and tokens', async () => {
    const batch = [
      exp({ groupId: 'g', runIndex: 0, reward: 1, tokens, promptLength: 2, truncated: true }),
      exp({
        groupId: 'g',
        runIndex: 1,
        reward: 0,
        tokens,
        promptLength: 2,
        actionMask: [1, 0, 1],
        truncated: true,
      }),
      exp({ groupId: 'g', runIndex: 2, reward: 1, tokens, promptLength: 2, actionMask: [1, 1, 0] }),
      // An all-tokens mask of an older row is read and rewritten in the response layout.
      {
        ...exp({ groupId: 'g', runIndex: 3, reward: 0, tokens, promptLength: 2, truncated: true }),
        actionMask: [0, 0, 1, 1, 1],
      },
    ];
    const res = await run(maskTruncated, {}, batch);
    expect(res.rows.map((e) => e.actionMask)).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [1, 1, 0],
      [0, 0, 0],
    ]);
    expect(res.metrics).toEqual({
      rows: 4,
      truncated_masked: 3,
      tokens_masked: 8,
      truncated_without_tokens: 0,
    });
    // Input rows are not mutated.
    expect(batch[1]!.actionMask).toEqual([1, 0, 1]);
  });

  it('zeroes per-token advantages written before it, and drops a row whose mask fits no layout', async () => {
    const graded = await chain(
      [
        [grpo, { perToken: true, eps: 0, std: 'population' }],
        [maskTruncated, {}],
      ],
      [
        exp({ groupId: 'g', runIndex: 0, reward: 1, tokens, promptLength: 2, truncated: true }),
        exp({ groupId: 'g', runIndex: 1, reward: 0, tokens, promptLength: 2 }),
      ],
    );
    expect(graded.rows.map((e) => [e.advantage, e.advantages])).toEqual([
      [1, [0, 0, 0]],
      [-1, [-1, -1, -1]],
    ]);
    const bad = {
      ...exp({ groupId: 'g', reward: 1, tokens, promptLength: 2, truncated: true }),
      actionMask: [1],
    };
    const res = await run(maskTruncated, {}, [bad]);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'truncated response cannot be masked: actionMask has 1 entries; expected 3 (one per response token)',
    ]);
  });
});

describe('dynamic sampling (reward_std_filter by: correct)', () => {
  /** DAPO-style rows: reward ±1 minus an overlong penalty, correctness in info.accuracy. */
  const dapoRow = (g: number, i: number, accuracy: number, penalty = 0) =>
    exp({ groupId: `g${g}`, runIndex: i, reward: (accuracy > 0 ? 1 : -1) - penalty, info: { accuracy } });
  const batch = [
    // g0: all correct, but one overlong: rewards 1, 0.8 differ.
    dapoRow(0, 0, 1),
    dapoRow(0, 1, 1, 0.2),
    // g1: mixed.
    dapoRow(1, 0, 1),
    dapoRow(1, 1, -1),
    // g2: all wrong, rewards −1, −1.2.
    dapoRow(2, 0, -1),
    dapoRow(2, 1, -1, 0.2),
    // g3: mixed.
    dapoRow(3, 0, -1),
    dapoRow(3, 1, 1),
  ];

  it('keeps groups with 0 < correct < G by the chosen metric and counts all-correct and all-wrong groups', async () => {
    const res = await run(rewardStdFilter, { by: 'correct', metric: 'accuracy' }, batch);
    expect(res.rows.map((e) => e.groupId)).toEqual(['g1', 'g1', 'g3', 'g3']);
    expect(res.dropped.map((d) => `${d.row.groupId}: ${d.reason}`)).toEqual([
      'g0: group g0: all 2 correct (accuracy > 0)',
      'g0: group g0: all 2 correct (accuracy > 0)',
      'g2: group g2: all 2 wrong (accuracy ≤ 0)',
      'g2: group g2: all 2 wrong (accuracy ≤ 0)',
    ]);
    expect(res.metrics).toMatchObject({
      groups: 4,
      groups_kept: 2,
      groups_all_correct: 1,
      groups_all_wrong: 1,
    });
  });

  it('judged by the std of the penalised reward instead, the overlong groups would pass', async () => {
    const res = await run(rewardStdFilter, {}, batch);
    expect(res.rows.map((e) => e.groupId)).toEqual(['g0', 'g0', 'g1', 'g1', 'g2', 'g2', 'g3', 'g3']);
    // The counts are reported all the same (by reward > 0).
    expect(res.metrics).toMatchObject({ groups_all_correct: 1, groups_all_wrong: 1 });
  });

  it('with refill keeps the first targetGroups mixed groups (batch order), the rest is surplus', async () => {
    const res = await run(
      rewardStdFilter,
      { by: 'correct', metric: 'accuracy', refill: true, targetGroups: 1 },
      batch,
    );
    expect(res.rows.map((e) => e.groupId)).toEqual(['g1', 'g1']);
    expect(res.metrics).toMatchObject({ groups_kept: 1, groups_dropped_surplus: 1, groups_short: 0 });
  });

  it('a missing metric leaves the group without values; threshold is refused with by: correct', async () => {
    const res = await run(rewardStdFilter, { by: 'correct', metric: 'accuracy' }, [
      exp({ groupId: 'g9', reward: 1 }),
    ]);
    expect(res.dropped.map((d) => d.reason)).toEqual(['group g9: no finite accuracy values']);
    expect(() => rewardStdFilter.params.parse({ by: 'correct', threshold: 0.1 })).toThrow(
      /only with by: std/,
    );
  });
});
