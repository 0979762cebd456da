import { describe, expect, it } from 'vitest';
import { Rng, type RngState } from '../../src/core/rng.ts';
import { indexOfTieRank, tieRank, walkByTieRank } from '../../src/selectors/hash-tie.ts';
import { createSelector } from '../../src/selectors/registry.ts';

describe('tie order inversion', () => {
  it('indexOfTieRank inverts tieRank for any salt', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 2000; i++) {
      const k = rng.int(2 ** 31);
      const salt = rng.nextUint32();
      expect(indexOfTieRank(tieRank(k, salt), salt)).toBe(k);
    }
  });

  it('walkByTieRank lists indices in increasing tie rank, skipping the excluded', () => {
    const size = 3_000_000;
    const salt = 12345;
    const seen: number[] = [];
    walkByTieRank(
      size,
      salt,
      (k) => k % 2 === 0,
      (k) => {
        seen.push(k);
        return seen.length < 5;
      },
    );
    // The reference: rank every odd index.
    const ref: number[] = [];
    for (let k = 1; k < size; k += 2) ref.push(k);
    ref.sort((a, b) => tieRank(a, salt) - tieRank(b, salt));
    expect(seen).toEqual(ref.slice(0, 5));
  });
});

describe('pass_rate at 1M tasks', () => {
  it('picks exactly what ranking every task picks, before and after feedback', () => {
    const n = 1_000_000;
    const ids = Array.from({ length: n }, (_, k) => `t${k}`);
    const sel = createSelector({ type: 'pass_rate' }, { ids, features: {} }, 11);
    const rewards = new Rng(9);
    for (let step = 0; step < 4; step++) {
      const state = sel.state();
      const rngState = (state.data as { rng: number[] }).rng as unknown as RngState;
      const salt = Rng.fromState(rngState).nextUint32();
      const picked = sel.select(32, { step });
      // Reference: every task by (|estimate − 0.5|, tie rank).
      const est = sel.predict!(ids);
      const key = (k: number) => Math.abs(est[k]! - 0.5);
      const order: number[] = [];
      for (let k = 0; k < n; k++) order.push(k);
      const best = order
        .filter((k) => key(k) <= key(Number(picked.at(-1)!.slice(1))))
        .sort((a, b) => key(a) - key(b) || tieRank(a, salt) - tieRank(b, salt))
        .slice(0, 32);
      expect(picked).toEqual(best.map((k) => `t${k}`));
      sel.feedback(
        picked.map((taskId, i) => ({
          taskId,
          rewards: Array.from({ length: 8 }, () => (rewards.float() < (i % 4) / 4 ? 1 : 0)),
        })),
        { step },
      );
    }
  });
});
