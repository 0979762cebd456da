// BOTS once the capability leaves [0, 1]: tasks whose p̃ clamps follow clipped tracks shared by
// the tasks with the same clamping history, instead of being stored one by one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { ClipSide, stepTrack } from '../../src/selectors/bots-clip-side.ts';
import { encodeArray } from '../../src/selectors/state-codec.ts';
import type { SelectorState } from '../../src/selectors/types.ts';
import { densityOrder, expectPlainPosterior } from './bots-drive.ts';

/** A pool with tasks of every kind: f0 = 0, strong below weak (Δ < 0), Δ = 0, and no references. */
function pool(n: number, seed: number): { f0: number[]; f1: number[] } {
  const rng = new Rng(seed);
  const f0: number[] = [];
  const f1: number[] = [];
  for (let k = 0; k < n; k++) {
    const x = Math.round(rng.float() * 32) / 32;
    const y = Math.round(rng.float() * 32) / 32;
    if (k % 13 === 7) {
      f0.push(Number.NaN);
      f1.push(y);
    } else if (k % 5 === 3) {
      f0.push(Math.max(x, y)); // strong below weak
      f1.push(Math.min(x, y));
    } else if (k % 17 === 2) {
      f0.push(x);
      f1.push(x);
    } else {
      f0.push(k % 4 === 1 ? 0 : Math.min(x, y));
      f1.push(Math.max(x, y));
    }
  }
  return { f0, f1 };
}

const make = (f0: number[], f1: number[], seed: number, shortlist: number) => {
  const s = new BotsSelector(seed, { shortlist, grid: 4 });
  s.init({
    ids: f0.map((_, k) => `t${k}`),
    features: { weak_pass_rate: Float64Array.from(f0), strong_pass_rate: Float64Array.from(f1) },
  });
  return s;
};

/** Half solved, then nothing (c falls below 0), then everything (c climbs past 1), then at random. */
function run(s: BotsSelector, steps: number, from = 0, rng = new Rng(99)) {
  const history: Array<{ idx: number[]; r: number[] }> = [];
  const cs: number[] = [];
  for (let t = from; t < from + steps; t++) {
    const ids = s.select(6);
    const idx = [...new Set(ids)].map((id) => Number(id.slice(1)));
    const r = idx.map(() => (t < 10 ? 0.5 : t < 17 ? 0 : t < 32 ? 1 : Math.round(rng.float() * 4) / 4));
    s.feedback(idx.map((k, j) => ({ taskId: `t${k}`, rewards: [r[j]!] })));
    history.push({ idx, r });
    cs.push(s.c);
  }
  return { history, cs };
}

describe('bots: clipped tracks', () => {
  it('keeps only observed tasks and tasks clamped on both sides explicit; the posterior equals the plain equations', () => {
    const { f0, f1 } = pool(3000, 5);
    const s = make(f0, f1, 2, 64);
    const { history, cs } = run(s, 90);
    expect(Math.min(...cs)).toBeLessThan(-0.1);
    expect(Math.max(...cs)).toBeGreaterThan(1.1);
    // Expected explicit set: observed tasks (none settles in 90 steps), tasks without references,
    // and tasks whose p̃ left [0, 1] both at some c < 0 and at some c > 1.
    const observed = new Set(history.flatMap((h) => h.idx));
    let expected = 0;
    // What storing every clamped task one by one (the design before clipped tracks) would keep.
    let storedOneByOne = 0;
    for (let k = 0; k < f0.length; k++) {
      const d = f1[k]! - f0[k]!;
      const out = (c: number) => f0[k]! + c * d < 0 || f0[k]! + c * d > 1;
      const below = cs.some((c) => c < 0 && out(c));
      const above = cs.some((c) => c > 1 && out(c));
      const always = observed.has(k) || Number.isNaN(f0[k]!);
      if (always || (below && above)) expected++;
      if (always || below || above) storedOneByOne++;
    }
    expect(s.explicitTasks).toBe(expected);
    expect(storedOneByOne - expected).toBeGreaterThan(500);
    expectPlainPosterior(s, f0, f1, history);
  });

  it('observed tasks rejoin their clipped group once forgetting has erased their own evidence', () => {
    const { f0, f1 } = pool(400, 8);
    const s = make(f0, f1, 4, 16);
    const history: Array<{ idx: number[]; r: number[] }> = [];
    const rng = new Rng(3);
    let most = 0;
    for (let t = 0; t < 500; t++) {
      // Many tasks observed early; later only four; nothing is ever solved, so c stays below 0.
      const idx = t < 30 ? rng.sampleDistinct(400, 12) : [0, 1, 4, 5];
      history.push({ idx, r: idx.map(() => 0) });
      s.feedback(idx.map((k) => ({ taskId: `t${k}`, rewards: [0] })));
      most = Math.max(most, s.explicitTasks);
    }
    const noRefs = f0.filter((x) => Number.isNaN(x)).length;
    expect(s.c).toBeLessThan(0);
    expect(most).toBeGreaterThan(200);
    // The four tasks still observed, and the tasks without references (always explicit).
    const still = [0, 1, 4, 5].filter((k) => !Number.isNaN(f0[k]!)).length;
    expect(s.explicitTasks).toBe(still + noRefs);
    expectPlainPosterior(s, f0, f1, history);
  });

  it('the shortlist search stays exact over clipped groups (checked against a full sort)', () => {
    const { f0, f1 } = pool(2500, 6);
    const s = make(f0, f1, 7, 40);
    for (const steps of [20, 30, 40]) {
      run(s, steps);
      const { alpha, beta } = s.posterior();
      const order = densityOrder(alpha, beta);
      // The first 60 lie on the shared track mostly; the first 1,500 reach into the clipped groups;
      // all of them: no group may be skipped.
      for (const k of [60, 1500, f0.length])
        expect(s.densityRanking(k)).toEqual(order.slice(0, k).map((i) => `t${i}`));
    }
  });

  it('resumes exactly with clipped groups, and from a state written before them', () => {
    const { f0, f1 } = pool(1500, 9);
    const whole = make(f0, f1, 1, 32);
    const rest = new Rng(41);
    run(whole, 40);
    const wholeTail = run(whole, 40, 40, rest);
    const first = make(f0, f1, 1, 32);
    run(first, 40);
    const saved = JSON.parse(JSON.stringify(first.state())) as SelectorState;
    const data = saved.data as Record<string, unknown>;
    expect(data['clipGroups']).toBeDefined();
    const second = make(f0, f1, 1, 32);
    second.load(saved);
    expect(run(second, 40, 40, new Rng(41)).history).toEqual(wholeTail.history);
    expect(JSON.stringify(second.state())).toBe(JSON.stringify(whole.state()));

    // The same state as a version before clipped tracks wrote it: every clamped task explicit.
    const { alpha, beta } = first.posterior();
    const onTrack = new Set<number>();
    for (let k = 0; k < f0.length; k++) {
      const d = f1[k]! - f0[k]!;
      const lazyA =
        (data['lazy'] as number[])[0]! +
        (data['lazy'] as number[])[2]! * f0[k]! +
        (data['lazy'] as number[])[3]! * d;
      if (Math.abs(alpha[k]! - lazyA) <= 1e-12 * lazyA) onTrack.add(k);
    }
    const oldList = Array.from({ length: f0.length }, (_, k) => k).filter((k) => !onTrack.has(k));
    const old = {
      ...saved,
      data: {
        ...data,
        explicit: encodeArray(Int32Array.from(oldList)),
        observedAt: encodeArray(Int32Array.from(oldList, () => 0)),
      },
    } as SelectorState;
    delete (old.data as Record<string, unknown>)['clipGroups'];
    const third = make(f0, f1, 1, 32);
    third.load(old);
    expect(third.explicitTasks).toBe(oldList.length);
    const p3 = third.posterior();
    for (let k = 0; k < f0.length; k++) {
      expect(p3.alpha[k]).toBeCloseTo(alpha[k]!, 12);
      expect(p3.beta[k]).toBeCloseTo(beta[k]!, 12);
    }
    // Driven on with the same feedback, it keeps the same posterior as the uninterrupted selector.
    for (const st of wholeTail.history)
      third.feedback(st.idx.map((k, j) => ({ taskId: `t${k}`, rewards: [st.r[j]!] })));
    const pw = whole.posterior();
    const pt = third.posterior();
    for (let k = 0; k < f0.length; k++) {
      expect(Math.abs(pt.alpha[k]! - pw.alpha[k]!)).toBeLessThan(1e-9 * pw.alpha[k]!);
      expect(Math.abs(pt.beta[k]! - pw.beta[k]!)).toBeLessThan(1e-9 * pw.beta[k]!);
    }
  });
});

describe('ClipSide', () => {
  it("every grouped task's posterior mean lies inside its group's mean range, under random capability paths", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.array(fc.double({ min: -1, max: 2, noNaN: true }), { minLength: 1, maxLength: 30 }),
        (seed, path) => {
          const rng = new Rng(seed);
          const n = 200;
          const f0 = new Float64Array(n);
          const delta = new Float64Array(n);
          for (let k = 0; k < n; k++) {
            const x = rng.float();
            const y = rng.float();
            f0[k] = x;
            delta[k] = y - x;
          }
          const posBelow = new Int32Array(n).fill(-1);
          const posAbove = new Int32Array(n).fill(-1);
          const sides = ClipSide.build(f0, delta, posBelow, posAbove);
          let shared = { a: 1, a2: 1, b: 0, e: 0 };
          for (const c of path) {
            const u = { keep: 0.9, pullA: 0.1, pullB: 0.1, rm: 1.6, c };
            for (const side of sides)
              side.step(
                side.cutAt(c, shared, delta, () => {}),
                u,
              );
            const next = { a: 0, a2: 0, b: 0, e: 0 };
            stepTrack(shared, u, null, next);
            shared = next;
          }
          for (const side of sides) {
            // Groups partition [0, seen) in order, and each position is where its threshold says.
            let start = 0;
            side.groups.forEach((g, i) => {
              expect(g.end).toBeGreaterThan(start);
              const [lo, hi] = side.meanRange(i);
              for (let j = start; j < g.end; j++) {
                const k = side.task[j]!;
                const a = g.a + g.b * f0[k]! + g.e * delta[k]!;
                const b = g.a2 + g.b * (1 - f0[k]!) - g.e * delta[k]!;
                expect(a / (a + b)).toBeGreaterThanOrEqual(lo - 1e-12);
                expect(a / (a + b)).toBeLessThanOrEqual(hi + 1e-12);
              }
              start = g.end;
            });
            const extreme = side.below ? Math.min(...path) : Math.max(...path);
            expect(side.seen).toBe(side.clipCount(extreme));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
