import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import {
  duplicateResponseFilter,
  grpo,
  invalidReward,
  negativeOnly,
  positiveOnly,
  rewardStdFilter,
  rewardThreshold,
} from '../../../src/operators/experience/index.ts';
import { batchOf, chain, exp, run } from './helpers.ts';

const ids = (rows: { groupId: string; runIndex: number }[]) => rows.map((e) => `${e.groupId}/${e.runIndex}`);

describe('reward_std_filter', () => {
  it('drops advantage-equal groups with the reward in the reason', async () => {
    const res = await run(rewardStdFilter, {}, batchOf([[1, 1, 1], [0, 1, 1], [0, 0], [0.5]]));
    expect(ids(res.rows)).toEqual(['g1/0', 'g1/1', 'g1/2']);
    expect(res.dropped.map((d) => `${d.row.groupId}/${d.row.runIndex}: ${d.reason}`)).toEqual([
      'g0/0: group g0: all rewards equal (r=1)',
      'g0/1: group g0: all rewards equal (r=1)',
      'g0/2: group g0: all rewards equal (r=1)',
      'g2/0: group g2: all rewards equal (r=0)',
      'g2/1: group g2: all rewards equal (r=0)',
      'g3/0: group g3: all rewards equal (r=0.5)',
    ]);
    expect(res.metrics).toEqual({
      groups: 4,
      groups_kept: 1,
      groups_dropped_equal: 3,
      groups_dropped_low_std: 0,
      groups_dropped_surplus: 0,
      // By reward > 0: g0 [1,1,1] and g3 [0.5] are all correct, g2 [0,0] all wrong.
      groups_all_correct: 2,
      groups_all_wrong: 1,
      effective_group_ratio: 0.25,
    });
  });

  it('drops groups whose std is at or under a threshold', async () => {
    // [0, 0.1]: population std 0.05; [0, 1]: 0.5.
    const res = await run(
      rewardStdFilter,
      { threshold: 0.05 },
      batchOf([
        [0, 0.1],
        [0, 1],
      ]),
    );
    expect(ids(res.rows)).toEqual(['g1/0', 'g1/1']);
    expect(res.dropped[0]!.reason).toBe('group g0: reward std 0.05 ≤ threshold 0.05');
    expect(res.metrics?.groups_dropped_low_std).toBe(1);
  });

  it('refill keeps the first targetGroups mixed groups and drops the surplus', async () => {
    const batch = batchOf([
      [1, 1],
      [0, 1],
      [0, 0],
      [1, 0],
      [0, 1],
      [0, 2],
    ]);
    const res = await run(rewardStdFilter, { refill: true, targetGroups: 2 }, batch);
    expect(ids(res.rows)).toEqual(['g1/0', 'g1/1', 'g3/0', 'g3/1']);
    expect(res.dropped.map((d) => `${d.row.groupId}: ${d.reason}`)).toEqual([
      'g0: group g0: all rewards equal (r=1)',
      'g0: group g0: all rewards equal (r=1)',
      'g2: group g2: all rewards equal (r=0)',
      'g2: group g2: all rewards equal (r=0)',
      'g4: surplus (batch already full)',
      'g4: surplus (batch already full)',
      'g5: surplus (batch already full)',
      'g5: surplus (batch already full)',
    ]);
    expect(res.metrics).toMatchObject({ groups_kept: 2, groups_dropped_surplus: 2, groups_short: 0 });
    expect(res.metrics?.effective_group_ratio).toBeCloseTo(4 / 6, 12);
  });

  it('refill reports how many groups it is short', async () => {
    const res = await run(
      rewardStdFilter,
      { refill: true, targetGroups: 3 },
      batchOf([
        [1, 1],
        [0, 1],
      ]),
    );
    expect(res.metrics).toMatchObject({ groups_kept: 1, groups_short: 2 });
  });

  it('validates refill params', () => {
    expect(() => rewardStdFilter.params.parse({ refill: true })).toThrow(/refill: true needs targetGroups/);
    expect(() => rewardStdFilter.params.parse({ targetGroups: 4 })).toThrow(/only applies with refill/);
    expect(() => rewardStdFilter.params.parse({ threshold: -1 })).toThrow();
  });

  it('ignores non-finite rewards when judging spread', async () => {
    const res = await run(rewardStdFilter, {}, batchOf([[1, Number.NaN, 1], [Number.NaN]]));
    expect(res.rows).toEqual([]);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'group g0: all rewards equal (r=1)',
      'group g0: all rewards equal (r=1)',
      'group g0: all rewards equal (r=1)',
      'group g1: no finite rewards',
    ]);
  });
});

describe('reward_threshold', () => {
  it('experience mode keeps min ≤ r ≤ max', async () => {
    const res = await run(rewardThreshold, { min: 0, max: 1 }, batchOf([[-0.5, 0, 0.5, 1, 1.5, Number.NaN]]));
    expect(res.rows.map((e) => e.reward)).toEqual([0, 0.5, 1]);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'reward -0.5 < min 0',
      'reward 1.5 > max 1',
      'reward is NaN',
    ]);
  });

  it('group mode judges the group mean', async () => {
    const res = await run(
      rewardThreshold,
      { min: 0.3, mode: 'group' },
      batchOf([
        [0, 0, 1],
        [0, 1],
        [0, 0.2],
      ]),
    );
    expect(ids(res.rows)).toEqual(['g0/0', 'g0/1', 'g0/2', 'g1/0', 'g1/1']);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'group g2: mean reward 0.1 < min 0.3',
      'group g2: mean reward 0.1 < min 0.3',
    ]);
    expect(res.metrics).toEqual({ groups: 3, groups_dropped: 1, kept: 5, dropped: 2 });
  });

  it('needs min or max, and min ≤ max', () => {
    expect(() => rewardThreshold.params.parse({})).toThrow(/set min, max or both/);
    expect(() => rewardThreshold.params.parse({ min: 2, max: 1 })).toThrow(/must be ≥ min/);
  });
});

describe('invalid_reward', () => {
  const weird = () => {
    const rows = batchOf([
      [1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0],
      [1, 0],
    ]);
    // A row from an untyped source can lack its reward entirely.
    (rows[4] as { reward: unknown }).reward = undefined;
    return rows;
  };

  it('drops NaN, ±Infinity and missing rewards, saying which', async () => {
    const res = await run(invalidReward, {}, weird());
    expect(ids(res.rows)).toEqual(['g0/0', 'g1/0', 'g1/1']);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'reward is NaN',
      'reward is +Infinity',
      'reward is -Infinity',
      'reward is missing',
    ]);
    expect(res.metrics).toMatchObject({
      dropped_nan: 1,
      dropped_pos_inf: 1,
      dropped_neg_inf: 1,
      dropped_missing: 1,
    });
  });

  it('scope group takes the rest of the group too', async () => {
    const res = await run(
      invalidReward,
      { scope: 'group' },
      batchOf([
        [1, Number.NaN],
        [0, 1],
      ]),
    );
    expect(ids(res.rows)).toEqual(['g1/0', 'g1/1']);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'group g0: run 1 has an invalid reward (reward is NaN)',
      'reward is NaN',
    ]);
    expect(res.metrics?.dropped_groupmates).toBe(1);
  });
});

describe('positive_only / negative_only', () => {
  it('keep the sign they name after an advantage operator', async () => {
    const batch = batchOf([
      [0, 1, 2],
      [3, 3],
    ]);
    const pos = await chain(
      [
        [grpo, { std: 'population' }],
        [positiveOnly, {}],
      ],
      batch,
    );
    expect(ids(pos.rows)).toEqual(['g0/2']);
    expect(pos.dropped.filter((d) => d.op === 'positive_only').map((d) => d.reason)).toEqual([
      'advantage -1.22474 is not > 0',
      'advantage 0 is not > 0',
      'advantage 0 is not > 0',
      'advantage 0 is not > 0',
    ]);
    const neg = await chain(
      [
        [grpo, { std: 'population' }],
        [negativeOnly, {}],
      ],
      batch,
    );
    expect(ids(neg.rows)).toEqual(['g0/0']);
  });

  it('fail clearly when no advantage operator ran', async () => {
    const batch = batchOf([[0, 1]]);
    await expect(run(positiveOnly, {}, batch)).rejects.toThrow(ConfigError);
    await expect(run(negativeOnly, {}, batch)).rejects.toThrow(
      /negative_only: every advantage in the batch is 0 and no advantage operator ran before negative_only \(put grpo/,
    );
  });

  it('accept advantages written elsewhere (non-zero, no marker) and all-zero batches after an advantage op', async () => {
    const external = [exp({ groupId: 'g', reward: 1, advantage: 0.5 })];
    expect((await run(positiveOnly, {}, external)).rows).toHaveLength(1);
    const flat = await chain(
      [
        [grpo, {}],
        [positiveOnly, {}],
      ],
      batchOf([[1, 1]]),
    );
    expect(flat.rows).toEqual([]);
  });
});

describe('duplicate_response_filter', () => {
  const mk = (groupId: string, runIndex: number, response: string) =>
    exp({ groupId, runIndex, reward: 0, response });

  it('drops repeats of an earlier response in the same group only', async () => {
    const batch = [
      mk('g0', 0, 'The answer is 4'),
      mk('g0', 1, 'the answer is 4'),
      mk('g0', 2, '  The answer\n is   4 '),
      mk('g1', 0, 'The answer is 4'),
      mk('g0', 3, 'The answer is 4'),
    ];
    const res = await run(duplicateResponseFilter, {}, batch);
    expect(ids(res.rows)).toEqual(['g0/0', 'g0/1', 'g1/0']);
    expect(res.dropped.map((d) => `${d.row.runIndex}: ${d.reason}`)).toEqual([
      '2: duplicate response in group g0',
      '3: duplicate response in group g0',
    ]);
    expect(res.metrics).toEqual({ duplicates: 2, groups_with_duplicates: 1 });
  });

  it('can compare exactly, or case-insensitively', async () => {
    const batch = [mk('g', 0, 'A  b'), mk('g', 1, 'A b'), mk('g', 2, 'a b')];
    expect(ids((await run(duplicateResponseFilter, { normalizeWhitespace: false }, batch)).rows)).toEqual([
      'g/0',
      'g/1',
      'g/2',
    ]);
    expect(ids((await run(duplicateResponseFilter, { caseInsensitive: true }, batch)).rows)).toEqual(['g/0']);
  });
});
