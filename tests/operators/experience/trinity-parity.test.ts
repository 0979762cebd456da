import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Experience } from '../../../src/core/experience.ts';
import {
  asymre,
  drGrpo,
  grpo,
  opmd,
  rec,
  reinforce,
  reinforcePp,
  reinforcePpSeq,
  rewardStdFilter,
  rloo,
} from '../../../src/operators/experience/index.ts';
import type { OperatorDefinition } from '../../../src/operators/operator.ts';
import { exp, run } from './helpers.ts';

/**
 * Golden vectors from Trinity-RFT's formulas, computed independently in numpy
 * (trinity_vectors.py → fixtures/trinity-vectors.json), and flat groups that must come out flat.
 */

interface VectorCase {
  name: string;
  groups: number[][];
  lengths: number[][];
  expected: Record<string, number[]>;
}

const CASES = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'trinity-vectors.json'), 'utf8'),
) as VectorCase[];

/** Rollout i of group g with `length` response tokens after a 2-token prompt. */
function batchWithLengths(groups: number[][], lengths: number[][]): Experience[] {
  return groups.flatMap((rewards, g) =>
    rewards.map((reward, i) =>
      exp({
        groupId: `g${g}`,
        runIndex: i,
        reward,
        response: `answer ${g}.${i}`,
        tokens: Array.from({ length: 2 + lengths[g]![i]! }, (_, t) => t + 1),
        promptLength: 2,
      }),
    ),
  );
}

const OPS: Record<string, [OperatorDefinition<Experience>, Record<string, unknown>]> = {
  grpo: [grpo, {}],
  rloo: [rloo, {}],
  opmd: [opmd, {}],
  'opmd_logavgexp_tau_0.5': [opmd, { baseline: 'logavgexp', tau: 0.5 }],
  'asymre_shift_-0.1': [asymre, { baselineShift: -0.1 }],
  rec: [rec, {}],
  reinforce: [reinforce, {}],
  reinforceplusplus: [reinforcePp, {}],
};

describe("Trinity parity: every advantage function against Trinity's formulas", () => {
  for (const c of CASES)
    for (const [key, [def, params]] of Object.entries(OPS))
      it(`${key}: ${c.name}`, async () => {
        const res = await run(def, params, batchWithLengths(c.groups, c.lengths));
        const got = res.rows.map((e) => e.advantage);
        const want = c.expected[key]!;
        expect(got).toHaveLength(want.length);
        // Trinity adds 1e-8 to the token count in reinforce++'s mean; everything else is exact.
        const worst = Math.max(...got.map((a, i) => Math.abs(a - want[i]!)));
        expect(worst).toBeLessThan(1e-7);
      });

  it('reinforce_pp weighs rollouts by length; reinforce_pp_seq does not (they differ on unequal lengths)', async () => {
    const c = CASES.find((x) => x.name === 'one long wrong answer')!;
    const batch = batchWithLengths(c.groups, c.lengths);
    const token = (await run(reinforcePp, {}, batch)).rows.map((e) => e.advantage);
    const seq = (await run(reinforcePpSeq, { std: 'sample', eps: 0 }, batch)).rows.map((e) => e.advantage);
    // 46 tokens, 40 of them reward 0: the token mean is 6/46, the wrong answer sits near it.
    expect(Math.abs(token[3]! - c.expected.reinforceplusplus![3]!)).toBeLessThan(1e-7);
    expect(Math.abs(seq[3]! - token[3]!)).toBeGreaterThan(1);
    // With equal lengths the two agree (sample std, Bessel over tokens vs rollouts aside: L = 1).
    const ones = batchWithLengths(c.groups, [[1, 1, 1, 1]]);
    const a = (await run(reinforcePp, { eps: 0 }, ones)).rows.map((e) => e.advantage);
    const b = (await run(reinforcePpSeq, { std: 'sample', eps: 0 }, ones)).rows.map((e) => e.advantage);
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i]!)))).toBeLessThan(1e-12);
  });
});

describe('flat groups are exactly flat everywhere (0.1, 0.37, 0.7 repeated)', () => {
  const flat = (v: number, sizes: number[]) =>
    batchWithLengths(
      sizes.map((n) => Array.from({ length: n }, () => v)),
      sizes.map((n) => Array.from({ length: n }, (_, i) => 1 + i)),
    );
  const values = [0.1, 0.37, 0.7];
  const sizes = [3, 5, 7, 6];

  const zeroAdvantage: Array<[string, OperatorDefinition<Experience>, Record<string, unknown>]> = [
    ['grpo', grpo, {}],
    ['grpo eps 0', grpo, { eps: 0 }],
    ['grpo population eps 0', grpo, { eps: 0, std: 'population' }],
    ['grpo batch std eps 0', grpo, { eps: 0, stdLevel: 'batch' }],
    ['dr_grpo', drGrpo, {}],
    ['rloo', rloo, {}],
    ['opmd', opmd, {}],
    ['opmd logavgexp', opmd, { baseline: 'logavgexp', tau: 0.3 }],
    ['rec', rec, {}],
    ['rec std eps 0', rec, { stdNormalize: true, eps: 0 }],
    ['rec balance', rec, { drop: 'balance', stdNormalize: true, eps: 0 }],
    ['reinforce_pp', reinforcePp, {}],
    ['reinforce_pp eps 0', reinforcePp, { eps: 0 }],
    ['reinforce_pp_seq eps 0', reinforcePpSeq, { eps: 0 }],
    ['reinforce_pp_seq group eps 0', reinforcePpSeq, { eps: 0, baseline: 'group' }],
  ];
  for (const [name, def, params] of zeroAdvantage)
    it(`${name}: every advantage is exactly 0 and no row is dropped`, async () => {
      for (const v of values) {
        const batch = flat(v, sizes);
        const res = await run(def, params, batch);
        expect({ v, dropped: res.dropped.length, rows: res.rows.length }).toEqual({
          v,
          dropped: 0,
          rows: batch.length,
        });
        expect(res.rows.every((e) => e.advantage === 0)).toBe(true);
      }
    });

  it('asymre gives every rollout of a flat group the same advantage, −δ', async () => {
    for (const v of values) {
      const res = await run(asymre, { baselineShift: -0.1 }, flat(v, sizes));
      expect(new Set(res.rows.map((e) => e.advantage)).size).toBe(1);
      expect(res.rows[0]!.advantage).toBeCloseTo(0.1, 12);
    }
  });

  it('grpo stdThreshold 0 and reward_std_filter (threshold 0) drop every flat group, with the reason', async () => {
    for (const v of values) {
      const batch = flat(v, sizes);
      const g = await run(grpo, { stdThreshold: 0 }, batch);
      expect([g.rows.length, g.dropped.length]).toEqual([0, batch.length]);
      expect(g.dropped[0]!.reason).toBe('group g0: reward std 0 ≤ stdThreshold 0');
      const f = await run(rewardStdFilter, { threshold: 0 }, batch);
      expect([f.rows.length, f.dropped.length]).toEqual([0, batch.length]);
    }
  });
});
