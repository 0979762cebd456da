import { describe, expect, it } from 'vitest';
import {
  drGrpo,
  grpo,
  reinforcePpSeq,
  rewardThreshold,
  rloo,
} from '../../../src/operators/experience/index.ts';
import { batchOf, chain, ctx, exp, r6, run } from './helpers.ts';

describe('acceptance: 8 tasks × 4 rollouts, reward = rollout index', () => {
  it('reward_threshold min 0.5 then GRPO leaves 24 experiences with known advantages', async () => {
    const batch = batchOf(Array.from({ length: 8 }, () => [0, 1, 2, 3]));
    expect(batch).toHaveLength(32);
    const { rows, dropped } = await chain(
      [
        [rewardThreshold, { min: 0.5 }],
        [grpo, {}],
      ],
      batch,
    );
    expect(rows).toHaveLength(24);
    expect(dropped).toHaveLength(8);
    expect(new Set(dropped.map((d) => `${d.op}: ${d.reason}`))).toEqual(
      new Set(['reward_threshold: reward 0 < min 0.5']),
    );
    // Each surviving group has rewards 1, 2, 3: mean 2, sample std 1 (grpo's default).
    // A = (r − 2) / (1 + 1e-6).
    for (let g = 0; g < 8; g++) {
      const group = rows.filter((e) => e.groupId === `g${g}`);
      expect(group.map((e) => e.runIndex)).toEqual([1, 2, 3]);
      expect(group.map((e) => r6(e.advantage))).toEqual([-0.999999, 0, 0.999999]);
      expect(group.map((e) => e.info.advantage_fn)).toEqual(['grpo', 'grpo', 'grpo']);
    }
  });
});

describe('grpo', () => {
  it("sample std by default (Trinity's grpo: PyTorch's unbiased std), eps 1e-6", async () => {
    const byDefault = await run(grpo, {}, batchOf([[0, 1, 2, 3]]));
    const explicit = await run(grpo, { std: 'sample', eps: 1e-6 }, batchOf([[0, 1, 2, 3]]));
    expect(byDefault.rows.map((e) => e.advantage)).toEqual(explicit.rows.map((e) => e.advantage));
  });

  it('golden values for population and sample std', async () => {
    // [0,1,2,3]: mean 1.5, population std sqrt(1.25) = 1.118034, sample std sqrt(5/3) = 1.290994.
    const pop = await run(grpo, { std: 'population' }, batchOf([[0, 1, 2, 3]]));
    expect(pop.rows.map((e) => r6(e.advantage))).toEqual([-1.34164, -0.447213, 0.447213, 1.34164]);
    const sample = await run(grpo, { std: 'sample' }, batchOf([[0, 1, 2, 3]]));
    expect(sample.rows.map((e) => r6(e.advantage))).toEqual([-1.161894, -0.387298, 0.387298, 1.161894]);
  });

  it('stdNormalize: false gives r − mean', async () => {
    const res = await run(
      grpo,
      { stdNormalize: false },
      batchOf([
        [0, 1, 2, 3],
        [5, 5],
      ]),
    );
    expect(res.rows.map((e) => r6(e.advantage))).toEqual([-1.5, -0.5, 0.5, 1.5, 0, 0]);
  });

  it('flat groups and singletons get 0, even with eps 0', async () => {
    const res = await run(grpo, { eps: 0 }, batchOf([[1, 1, 1], [7]]));
    expect(res.rows.map((e) => e.advantage)).toEqual([0, 0, 0, 0]);
    expect(res.metrics?.singleton_groups).toBe(1);
    expect(res.metrics?.zero_advantage).toBe(4);
  });

  it('drops non-finite rewards with a reason and leaves the group baseline to the rest', async () => {
    const batch = batchOf([[0, Number.NaN, 1, Number.POSITIVE_INFINITY]]);
    const res = await run(grpo, { stdNormalize: false }, batch);
    expect(res.rows.map((e) => e.runIndex)).toEqual([0, 2]);
    expect(res.rows.map((e) => e.advantage)).toEqual([-0.5, 0.5]);
    expect(res.dropped.map((d) => [d.row.runIndex, d.reason])).toEqual([
      [1, 'reward is NaN: no advantage can be computed'],
      [3, 'reward is +Infinity: no advantage can be computed'],
    ]);
    expect(res.metrics?.dropped_invalid_reward).toBe(2);
  });

  it('keeps batch order when groups interleave and does not mutate its input', async () => {
    const batch = [
      exp({ groupId: 'gA', runIndex: 0, reward: 1 }),
      exp({ groupId: 'gB', runIndex: 0, reward: 10 }),
      exp({ groupId: 'gA', runIndex: 1, reward: 3 }),
      exp({ groupId: 'gB', runIndex: 1, reward: 20 }),
    ];
    const before = JSON.stringify(batch);
    const res = await run(grpo, { stdNormalize: false }, batch);
    expect(res.rows.map((e) => `${e.groupId}:${e.advantage}`)).toEqual(['gA:-1', 'gB:-5', 'gA:1', 'gB:5']);
    expect(JSON.stringify(batch)).toBe(before);
  });

  it('reports metrics', async () => {
    const res = await run(
      grpo,
      { stdNormalize: false },
      batchOf([
        [0, 2],
        [4, 4],
      ]),
    );
    expect(res.metrics).toMatchObject({
      rows: 4,
      groups: 2,
      mean_reward: 2.5,
      advantage_min: -1,
      advantage_max: 1,
      zero_advantage: 2,
      singleton_groups: 0,
    });
  });

  it('rejects unknown params', () => {
    expect(() => grpo.params.parse({ std_normalise: false })).toThrow();
    expect(() => grpo.params.parse({ std: 'unbiased' })).toThrow();
  });
});

describe('per-token advantages', () => {
  const tokens = [11, 12, 21, 22, 23];
  it('broadcast over response tokens when there is no mask', async () => {
    const batch = [
      exp({ groupId: 'g', runIndex: 0, reward: 0, tokens, promptLength: 2 }),
      exp({ groupId: 'g', runIndex: 1, reward: 1, tokens, promptLength: 2 }),
    ];
    const res = await run(drGrpo, { perToken: true }, batch);
    // One entry per response token (tokens.slice(promptLength)).
    expect(res.rows.map((e) => e.advantages)).toEqual([
      [-0.5, -0.5, -0.5],
      [0.5, 0.5, 0.5],
    ]);
  });

  it('respects a response-only or a full-length action mask', async () => {
    const batch = [
      exp({ groupId: 'g', runIndex: 0, reward: 0, tokens, promptLength: 2, actionMask: [1, 0, 1] }),
      exp({ groupId: 'g', runIndex: 1, reward: 1, tokens, promptLength: 2, actionMask: [0, 0, 1, 1, 0] }),
    ];
    const res = await run(drGrpo, { perToken: true }, batch);
    expect(res.rows.map((e) => e.advantages)).toEqual([
      [-0.5, 0, -0.5],
      [0.5, 0.5, 0],
    ]);
  });

  it('drops a row whose mask fits neither layout, and empties advantages for rows with no tokens', async () => {
    const c = ctx();
    const batch = [
      // Built past the schema (which refuses it): a row another tool wrote badly.
      { ...exp({ groupId: 'g', runIndex: 0, reward: 0, tokens, promptLength: 2 }), actionMask: [1, 1] },
      exp({ groupId: 'g', runIndex: 1, reward: 1 }),
    ];
    const res = await run(drGrpo, { perToken: true }, batch, c);
    expect(res.dropped.map((d) => d.reason)).toEqual([
      'cannot write per-token advantages: actionMask has 2 entries; expected 3 (one per response token)',
    ]);
    expect(res.rows.map((e) => e.advantages)).toEqual([[]]);
    expect(res.metrics?.per_token_without_tokens).toBe(1);
    expect(c.warnings).toHaveLength(1);
  });

  it('removes stale per-token advantages when per_token is off', async () => {
    const batch = [{ ...exp({ groupId: 'g', reward: 1 }), advantages: [9, 9] }];
    const res = await run(grpo, {}, batch);
    expect('advantages' in res.rows[0]!).toBe(false);
  });
});

describe('dr_grpo', () => {
  it('A = r − group mean, no std division', async () => {
    const res = await run(
      drGrpo,
      {},
      batchOf([
        [0, 1, 2, 3],
        [0, 0, 0, 10],
      ]),
    );
    expect(res.rows.map((e) => r6(e.advantage))).toEqual([-1.5, -0.5, 0.5, 1.5, -2.5, -2.5, -2.5, 7.5]);
  });
});

describe('rloo', () => {
  it('A_i = r_i − mean of the others', async () => {
    const res = await run(
      rloo,
      {},
      batchOf([
        [0, 1, 2, 3],
        [1, 0],
      ]),
    );
    // [0,1,2,3]: 0 − 2 = −2, 1 − 5/3, 2 − 4/3, 3 − 1; [1,0]: 1 − 0, 0 − 1.
    expect(res.rows.map((e) => r6(e.advantage))).toEqual([-2, -0.666667, 0.666667, 2, 1, -1]);
  });

  it('a group of one gets advantage 0 and a warning', async () => {
    const c = ctx();
    const res = await run(rloo, {}, batchOf([[5], [1, 3]]), c);
    expect(res.rows.map((e) => e.advantage)).toEqual([0, -2, 2]);
    expect(res.metrics?.singleton_groups).toBe(1);
    expect(c.warnings).toEqual([
      'rloo: 1 group(s) have a single rollout; their advantage is 0 (no leave-one-out baseline)',
    ]);
  });
});

describe('reinforce_pp_seq (sequence-level REINFORCE++)', () => {
  it('normalises over the whole batch (baseline none)', async () => {
    // x = [0,1,2,4]: mean 1.75, population std sqrt(2.1875) = 1.479020.
    const res = await run(
      reinforcePpSeq,
      {},
      batchOf([
        [0, 1],
        [2, 4],
      ]),
    );
    expect(res.rows.map((e) => r6(e.advantage))).toEqual([-1.183215, -0.507092, 0.169031, 1.521277]);
    expect(r6(res.metrics!.batch_std!)).toBe(1.47902);
  });

  it('subtracts the group mean first with baseline: group', async () => {
    // x = [−0.5, 0.5, −1, 1]: mean 0, std sqrt(0.625) = 0.790569.
    const res = await run(
      reinforcePpSeq,
      { baseline: 'group' },
      batchOf([
        [0, 1],
        [2, 4],
      ]),
    );
    expect(res.rows.map((e) => r6(e.advantage))).toEqual([-0.632455, 0.632455, -1.264909, 1.264909]);
  });

  it('a flat batch gets 0 everywhere', async () => {
    const res = await run(reinforcePpSeq, { eps: 0 }, batchOf([[2, 2], [2]]));
    expect(res.rows.map((e) => e.advantage)).toEqual([0, 0, 0]);
  });
});
