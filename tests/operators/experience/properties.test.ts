import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Experience } from '../../../src/core/experience.ts';
import { drGrpo, experienceOperators, grpo, rloo } from '../../../src/operators/experience/index.ts';
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
  grpo: [{}, { std: 'sample', perToken: true }, { stdNormalize: false }],
  dr_grpo: [{}, { perToken: true }],
  rloo: [{}],
  reinforce_pp: [{}, { baseline: 'group' }],
  reward_std_filter: [{}, { threshold: 0.5 }, { refill: true, targetGroups: 2 }],
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
            expect(res.rows.length + res.dropped.length).toBe(batch.length);
            const inIds = batch.map((e) => e.id).sort();
            const outIds = [...res.rows, ...res.dropped.map((d) => d.row)].map((e) => e.id).sort();
            expect(outIds).toEqual(inIds);
            for (const d of res.dropped) expect(d.reason.length).toBeGreaterThan(0);
          }),
          { numRuns: 60 },
        );
      }
    });
  }

  for (const def of [grpo, drGrpo, rloo]) {
    it(`${def.name}: advantages of each group sum to 0`, async () => {
      await fc.assert(
        fc.asyncProperty(batches(finiteReward), async (batch) => {
          const res = await run(def, {}, batch);
          expect(res.rows).toHaveLength(batch.length);
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
});
