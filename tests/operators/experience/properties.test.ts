import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Experience } from '../../../src/core/experience.ts';
import {
  asymre,
  drGrpo,
  experienceOperators,
  grpo,
  opmd,
  rec,
  reinforce,
  rloo,
} from '../../../src/operators/experience/index.ts';
import type { OperatorDefinition } from '../../../src/operators/operator.ts';
import { exp, run } from './helpers.ts';

const finiteReward = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double({ min: -1e3, max: 1e3, noNaN: true, noDefaultInfinity: true }),
);
const anyReward = fc.oneof(
  { weight: 8, arbitrary: finiteReward },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) },
);

/** Batches of up to 6 groups of 1–6 rollouts, rows shuffled so groups interleave. */
function batches(reward: fc.Arbitrary<number>): fc.Arbitrary<Experience[]> {
  return fc
    .tuple(
      fc.array(
        fc.array(fc.record({ reward, response: fc.constantFrom('a', 'b', ' a', 'c c'), adv: finiteReward }), {
          minLength: 1,
          maxLength: 6,
        }),
        { minLength: 0, maxLength: 6 },
      ),
      fc.integer({ min: 0, max: 1000 }),
    )
    .map(([groups, salt]) => {
      const rows = groups.flatMap((g, gi) =>
        g.map((r, i) =>
          exp({
            groupId: `g${gi}`,
            runIndex: i,
            reward: r.reward,
            response: r.response,
            advantage: r.adv,
            tokens: [1, 2, 3, 4],
            promptLength: 2,
            info: { score: (i + salt) % 3, advantage_fn: 'external' },
          }),
        ),
      );
      // A deterministic interleaving.
      return rows
        .map((r, i) => ({ r, k: (i * 7919 + salt) % 1009 }))
        .sort((a, b) => a.k - b.k)
        .map((x) => x.r);
    });
}

/** Parameters that make each operator runnable (required fields filled). */
const paramsFor: Record<string, unknown[]> = {
  grpo: [
    {},
    { std: 'sample', perToken: true },
    { stdNormalize: false },
    { stdLevel: 'batch', rankPenalty: 0.5 },
    { stdThreshold: 0.1, duplicateExperiences: true },
  ],
  dr_grpo: [{}, { perToken: true }],
  rloo: [{}],
  reinforce_pp: [{}, { eps: 0, perToken: true }],
  reinforce_pp_seq: [{}, { baseline: 'group' }],
  opmd: [{}, { baseline: 'logavgexp', tau: 0.3 }],
  asymre: [{}, { baselineShift: 0.2 }],
  rec: [{}, { drop: 'balance', stdNormalize: true }],
  reinforce: [{}],
  reward_std_filter: [
    {},
    { threshold: 0.5 },
    { refill: true, targetGroups: 2 },
    { by: 'correct', metric: 'score', refill: true, targetGroups: 1 },
  ],
  reward_threshold: [{ min: 0 }, { max: 1, mode: 'group' }],
  invalid_reward: [{}, { scope: 'group' }],
  positive_only: [{}],
  negative_only: [{}],
  reward_shaping: [
    { stat: 'score', op: 'div' },
    { stat: 'nope', onMissing: 'drop' },
  ],
  length_penalty: [
    { coef: 0.1, target: 1 },
    { coef: 1, unit: 'chars', onlyCorrect: true },
  ],
  duplicate_response_filter: [{}, { normalizeWhitespace: false }],
  pass_rate: [{}],
  mask_truncated: [{}],
  trajectory_advantage: [{}, { reward: 'per_step', gamma: 0.9, baseline: 'none' }],
  multi_step_grpo: [{}],
  trajectory_filter: [{}, { requireToolUse: true }],
};

describe('properties', () => {
  it('every built-in has property-test params', () => {
    expect(experienceOperators.map((d) => d.name).sort()).toEqual(Object.keys(paramsFor).sort());
  });

  for (const def of experienceOperators) {
    it(`${def.name}: rows in = rows out + dropped, and no row is invented`, async () => {
      for (const params of paramsFor[def.name]!) {
        await fc.assert(
          fc.asyncProperty(batches(anyReward), async (batch) => {
            const res = await run(def as OperatorDefinition<Experience>, params, batch);
            // grpo's duplicateExperiences adds copies (marked info.duplicate_of) of rows it keeps.
            const copies = res.rows.filter((e) => e.info.duplicate_of !== undefined);
            const own = res.rows.filter((e) => e.info.duplicate_of === undefined);
            for (const c of copies) expect(own.map((e) => e.id)).toContain(c.info.duplicate_of);
            expect(own.length + res.dropped.length).toBe(batch.length);
            const inIds = batch.map((e) => e.id).sort();
            const outIds = [...own, ...res.dropped.map((d) => d.row)].map((e) => e.id).sort();
            expect(outIds).toEqual(inIds);
            for (const d of res.dropped) expect(d.reason.length).toBeGreaterThan(0);
          }),
          { numRuns: 60 },
        );
      }
    });
  }

  const centred: Array<[OperatorDefinition<Experience>, unknown]> = [
    [grpo, {}],
    [grpo, { stdLevel: 'batch' }],
    [grpo, { rankPenalty: 0.7, stdNormalize: false }],
    [drGrpo, {}],
    [rloo, {}],
    [opmd, {}],
    [rec, {}],
    [rec, { drop: 'balance', stdNormalize: true }],
  ];
  for (const [def, params] of centred) {
    it(`${def.name} ${JSON.stringify(params)}: advantages of each group sum to 0`, async () => {
      await fc.assert(
        fc.asyncProperty(batches(finiteReward), async (batch) => {
          const res = await run(def, params, batch);
          expect(res.rows.length + res.dropped.length).toBe(batch.length);
          const sums = new Map<string, { sum: number; scale: number }>();
          for (const e of res.rows) {
            const s = sums.get(e.groupId) ?? { sum: 0, scale: 1 };
            s.sum += e.advantage;
            s.scale = Math.max(s.scale, Math.abs(e.advantage), Math.abs(e.reward));
            sums.set(e.groupId, s);
          }
          for (const { sum, scale } of sums.values())
            expect(Math.abs(sum)).toBeLessThanOrEqual(1e-9 * scale * 6);
        }),
        { numRuns: 200 },
      );
    });
  }

  /** Rows of each group with at least two rollouts, by group id. */
  const byGroup = (rows: readonly Experience[]) => {
    const m = new Map<string, Experience[]>();
    for (const e of rows) m.set(e.groupId, [...(m.get(e.groupId) ?? []), e]);
    return [...m.values()];
  };

  it('asymre: a group of G ≥ 2 sums to −G·baselineShift; a group of one is 0', async () => {
    await fc.assert(
      fc.asyncProperty(
        batches(finiteReward),
        fc.double({ min: -1, max: 1, noNaN: true }),
        async (batch, shift) => {
          const res = await run(asymre, { baselineShift: shift }, batch);
          for (const g of byGroup(res.rows)) {
            const sum = g.reduce((a, e) => a + e.advantage, 0);
            const scale = Math.max(1, ...g.map((e) => Math.abs(e.reward)));
            expect(Math.abs(sum - (g.length === 1 ? 0 : -g.length * shift))).toBeLessThanOrEqual(
              1e-9 * scale * 6,
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('opmd logavgexp: the baseline lies between the group mean and max (Σ A ≤ 0 ≤ max A)', async () => {
    await fc.assert(
      fc.asyncProperty(
        batches(finiteReward),
        fc.double({ min: 0.05, max: 20, noNaN: true }),
        async (batch, tau) => {
          const res = await run(opmd, { baseline: 'logavgexp', tau }, batch);
          for (const g of byGroup(res.rows)) {
            const scale = Math.max(1, ...g.map((e) => Math.abs(e.reward)));
            const tol = 1e-9 * scale * 6;
            expect(g.reduce((a, e) => a + e.advantage, 0)).toBeLessThanOrEqual(tol);
            expect(Math.max(...g.map((e) => e.advantage))).toBeGreaterThanOrEqual(-tol);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reinforce: the advantage is the reward', async () => {
    await fc.assert(
      fc.asyncProperty(batches(finiteReward), async (batch) => {
        const res = await run(reinforce, {}, batch);
        for (const e of res.rows) expect(e.advantage).toBe(e.reward);
      }),
      { numRuns: 100 },
    );
  });

  it('rec balance: in every group, the rollouts kept below its mean never outnumber those at or above', async () => {
    await fc.assert(
      fc.asyncProperty(batches(finiteReward), async (batch) => {
        const res = await run(rec, { drop: 'balance' }, batch);
        for (const input of byGroup(batch)) {
          const m = input.reduce((a, e) => a + e.reward, 0) / input.length;
          const kept = res.rows.filter((e) => e.groupId === input[0]!.groupId);
          const below = kept.filter((e) => e.reward < m).length;
          expect(below).toBeLessThanOrEqual(kept.length - below);
          // Only rollouts below the mean are ever dropped.
          for (const d of res.dropped.filter((x) => x.row.groupId === input[0]!.groupId))
            expect(d.row.reward).toBeLessThan(m);
        }
      }),
      { numRuns: 200 },
    );
  });
});
