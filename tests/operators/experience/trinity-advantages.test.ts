import { describe, expect, it } from 'vitest';
import { asymre, grpo, logAvgExp, opmd, rec, reinforce } from '../../../src/operators/experience/index.ts';
import { batchOf, ctx, exp, r6, run } from './helpers.ts';

const adv = (rows: { advantage: number }[]) => rows.map((e) => r6(e.advantage));

describe('grpo: stdLevel, rankPenalty, stdThreshold, duplicateExperiences', () => {
  const twoTasks = () =>
    batchOf([
      [1, 2, 3],
      [11, 12, 13],
    ]);

  it('stdLevel: batch divides by one std over the batch; the mean stays per group', async () => {
    // Rewards 1,2,3,11,12,13: mean 7, Σ(r − 7)² = 154; population std √(154/6) = 5.066228.
    const res = await run(grpo, { stdLevel: 'batch', eps: 0, std: 'population' }, twoTasks());
    expect(adv(res.rows)).toEqual([-0.197386, 0, 0.197386, -0.197386, 0, 0.197386]);
    expect(r6(res.metrics!.batch_std!)).toBe(5.066228);
    // Sample std √(154/5) = 5.549775.
    const sample = await run(grpo, { stdLevel: 'batch', std: 'sample', eps: 0 }, twoTasks());
    expect(adv(sample.rows)).toEqual([-0.180187, 0, 0.180187, -0.180187, 0, 0.180187]);
    // Per group instead, each group is [−1, 0, 1]/std([1,2,3]) = ±1.224745.
    expect(adv((await run(grpo, { eps: 0, std: 'population' }, twoTasks())).rows)).toEqual([
      -1.224745, 0, 1.224745, -1.224745, 0, 1.224745,
    ]);
  });

  it('rankPenalty scales rewards by 1 − λ·rank/G, rank 0 = least likely', async () => {
    // Mean logprobs −0.1, −0.5, −1.0, −0.3 → ranks 3, 1, 0, 2; λ = 0.5, G = 4:
    // factors 0.625, 0.875, 1, 0.75 → rewards 0.625, 0.875, 1, 0; mean 0.625.
    const lp = [[-0.1], [-0.5, -0.5], [-1], [-0.2, -0.4]];
    const batch = [1, 1, 1, 0].map((reward, i) =>
      exp({
        groupId: 'g0',
        runIndex: i,
        reward,
        logprobs: lp[i]!,
        tokens: [7, ...lp[i]!.map(() => 8)],
        promptLength: 1,
      }),
    );
    const res = await run(grpo, { rankPenalty: 0.5, stdNormalize: false }, batch);
    expect(adv(res.rows)).toEqual([0, 0.25, 0.375, -0.625]);
    expect(res.metrics?.rank_penalty_skipped_groups).toBe(0);
  });

  it('rankPenalty leaves a group without logprobs as it is, with a warning', async () => {
    const c = ctx();
    const res = await run(grpo, { rankPenalty: 0.5, stdNormalize: false }, batchOf([[1, 0]]), c);
    expect(adv(res.rows)).toEqual([0.5, -0.5]);
    expect(res.metrics?.rank_penalty_skipped_groups).toBe(1);
    expect(c.warnings).toEqual([
      'grpo: rankPenalty skipped for 1 group(s) with a rollout that has no logprobs',
    ]);
  });

  it('stdThreshold drops flat groups (and groups of one) with the reason', async () => {
    const res = await run(
      grpo,
      { stdThreshold: 0, eps: 0, std: 'population' },
      batchOf([[1, 1], [0, 1], [5]]),
    );
    expect(res.rows.map((e) => e.id)).toEqual(['g1-0', 'g1-1']);
    expect(adv(res.rows)).toEqual([-1, 1]);
    expect(res.dropped.map((d) => `${d.row.id}: ${d.reason}`)).toEqual([
      'g0-0: group g0: reward std 0 ≤ stdThreshold 0',
      'g0-1: group g0: reward std 0 ≤ stdThreshold 0',
      'g2-0: group g2: reward std 0 ≤ stdThreshold 0',
    ]);
    expect(res.metrics?.groups_dropped_low_std).toBe(2);
  });

  it('duplicateExperiences refills each dropped group with a copy of a surviving one (seeded)', async () => {
    const batch = batchOf([
      [1, 1],
      [0, 1],
      [2, 2],
      [0, 3],
    ]);
    const params = { stdThreshold: 0, duplicateExperiences: true, eps: 0 };
    const res = await run(grpo, params, batch);
    const again = await run(grpo, params, batch);
    expect(again.rows).toEqual(res.rows);
    expect(res.rows).toHaveLength(8);
    expect(res.rows.slice(0, 4).map((e) => e.id)).toEqual(['g1-0', 'g1-1', 'g3-0', 'g3-1']);
    const copies = res.rows.slice(4);
    expect(copies.map((e) => e.id.replace(/^g[13]/, 'g?'))).toEqual([
      'g?-0~dup1',
      'g?-1~dup1',
      'g?-0~dup2',
      'g?-1~dup2',
    ]);
    for (const c of copies) {
      const source = res.rows.find((e) => e.id === c.info.duplicate_of)!;
      expect(c.groupId).toBe(`${source.groupId}~dup${c.id.slice(-1)}`);
      expect(c.advantage).toBe(source.advantage);
      expect(c.reward).toBe(source.reward);
    }
    expect(res.metrics).toMatchObject({
      groups_dropped_low_std: 2,
      groups_duplicated: 2,
      rows_duplicated: 4,
    });
    expect(res.dropped).toHaveLength(4);
  });

  it('duplicateExperiences with nothing left warns and adds nothing', async () => {
    const c = ctx();
    const res = await run(grpo, { stdThreshold: 0, duplicateExperiences: true }, batchOf([[1, 1]]), c);
    expect(res.rows).toEqual([]);
    expect(res.metrics).toMatchObject({ groups_duplicated: 0, rows_duplicated: 0 });
    expect(c.warnings).toEqual(['grpo: 1 group(s) dropped and none left to duplicate']);
  });

  it('validates the combinations', () => {
    expect(() => grpo.params.parse({ duplicateExperiences: true })).toThrow(/set stdThreshold too/);
    expect(() => grpo.params.parse({ stdLevel: 'batch', stdNormalize: false })).toThrow(
      /only with stdNormalize/,
    );
    expect(() => grpo.params.parse({ rankPenalty: 1.5 })).toThrow();
    expect(() => grpo.params.parse({ std_cal_level: 'batch' })).toThrow();
  });
});

describe('opmd', () => {
  it('baseline mean: A = r − group mean', async () => {
    expect(adv((await run(opmd, {}, batchOf([[0, 1, 2, 3]]))).rows)).toEqual([-1.5, -0.5, 0.5, 1.5]);
  });

  it('baseline logavgexp: b = τ·log(mean(exp(r/τ)))', async () => {
    // [0, ln 3], τ = 1: exp → 1, 3; mean 2; b = ln 2.
    const res = await run(opmd, { baseline: 'logavgexp' }, batchOf([[0, Math.log(3)]]));
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: a golden value, rounded to 6 digits on purpose
    expect(adv(res.rows)).toEqual([-0.693147, 0.405465]);
    // [0, 1], τ = 0.5: b = 0.5·ln((1 + e²)/2) = 0.716890.
    const cool = await run(opmd, { baseline: 'logavgexp', tau: 0.5 }, batchOf([[0, 1]]));
    expect(adv(cool.rows)).toEqual([-0.71689, 0.28311]);
  });

  it('logAvgExp does not overflow and tends to the max as τ → 0 and the mean as τ grows', () => {
    expect(logAvgExp([1000, 1000], 1)).toBe(1000);
    expect(r6(logAvgExp([0, 1], 1e-4))).toBe(r6(1 + 1e-4 * Math.log(0.5)));
    expect(logAvgExp([0, 1], 1e6)).toBeCloseTo(0.5, 5);
  });

  it('a group of one has advantage 0', async () => {
    expect(adv((await run(opmd, { baseline: 'logavgexp' }, batchOf([[4], [1, 1]]))).rows)).toEqual([0, 0, 0]);
  });
});

describe('asymre', () => {
  it('A = r − (mean + baselineShift); the group sums to −G·shift', async () => {
    const res = await run(asymre, {}, batchOf([[0, 1, 1, 0], [3]]));
    // mean 0.5, baseline 0.5 − 0.1 = 0.4; a group of one gets 0.
    expect(adv(res.rows)).toEqual([-0.4, 0.6, 0.6, -0.4, 0]);
    const shifted = await run(asymre, { baselineShift: 0.25 }, batchOf([[0, 1]]));
    expect(adv(shifted.rows)).toEqual([-0.75, 0.25]);
  });
});

describe('rec', () => {
  it('A = r − group mean, or divided by the group std with stdNormalize', async () => {
    expect(adv((await run(rec, {}, batchOf([[1, 1, 0]]))).rows)).toEqual([0.333333, 0.333333, -0.666667]);
    expect(adv((await run(rec, { stdNormalize: true, eps: 0 }, batchOf([[1, 0]]))).rows)).toEqual([1, -1]);
  });

  it('drop: balance removes surplus negatives (seeded) and re-centres on what is kept', async () => {
    // g0 [1,0,0,0,0]: mean 0.2, 1 positive, 4 negatives → 3 negatives dropped; kept [1, 0] → ±0.5.
    // g1 [1,1,0]: 2 positives, 1 negative → nothing dropped.
    const batch = batchOf([
      [1, 0, 0, 0, 0],
      [1, 1, 0],
    ]);
    const res = await run(rec, { drop: 'balance' }, batch);
    const again = await run(rec, { drop: 'balance' }, batch);
    expect(again.rows.map((e) => e.id)).toEqual(res.rows.map((e) => e.id));
    expect(res.rows.filter((e) => e.groupId === 'g0').map((e) => [e.reward, e.advantage])).toEqual([
      [1, 0.5],
      [0, -0.5],
    ]);
    expect(adv(res.rows.filter((e) => e.groupId === 'g1'))).toEqual([0.333333, 0.333333, -0.666667]);
    expect(res.dropped).toHaveLength(3);
    for (const d of res.dropped) {
      expect(d.row.groupId).toBe('g0');
      expect(d.row.reward).toBe(0);
      expect(d.reason).toBe('rec balance: group g0 has 4 rollouts below its mean and 1 at or above');
    }
    expect(res.metrics).toMatchObject({ groups_balanced: 1, rows_dropped_balance: 3 });
  });
});

describe('reinforce', () => {
  it('A = r, a group of one included', async () => {
    expect(adv((await run(reinforce, {}, batchOf([[1, -1, 0.5], [2]]))).rows)).toEqual([1, -1, 0.5, 2]);
  });
});
