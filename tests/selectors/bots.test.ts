import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { decodeArray } from '../../src/selectors/state-codec.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';
import { densityOrder, expectPlainPosterior, expectResumesExactly, group } from './bots-drive.ts';

const F0 = [0.1, 0.2, 0, 0.5, 0.3];
const F1 = [0.5, 0.6, 0.3, 0.9, 0.3];

function exampleView(): SelectorTaskView {
  return {
    ids: ['a', 'b', 'c', 'd', 'e'],
    features: { weak_pass_rate: Float64Array.from(F0), strong_pass_rate: Float64Array.from(F1) },
  };
}

/** 16 rewards with mean r. */

describe('bots: the worked example of MISSION.md', () => {
  it('reproduces c, α and β after each of the two steps (to 1e-3 and beyond)', () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1 });
    s.init(exampleView());
    // Initial posterior Beta(1, 1); the first capability estimate is taken as is (no smoothing).
    s.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    expect(s.c).toBeCloseTo(0.5625, 12);
    let post = s.posterior();
    const close = (got: Float64Array, want: number[], digits: number) => {
      for (const [i, w] of want.entries()) expect(got[i]).toBeCloseTo(w, digits);
    };
    close(post.alpha, [5, 9, 1.27, 2.16, 1.48], 12);
    close(post.beta, [13, 9, 2.33, 1.44, 2.12], 12);
    s.feedback([
      { taskId: 'c', rewards: group(0) },
      { taskId: 'd', rewards: group(1) },
    ]);
    expect(Math.abs(s.c - 0.57768)).toBeLessThan(1e-3);
    expect(s.c).toBeCloseTo(0.9 * 0.5625 + 0.1 * (0.25 / 0.35), 12);
    post = s.posterior();
    const alpha = [5.1297, 8.8897, 1.243, 18.044, 1.912];
    const beta = [12.8703, 9.1103, 18.197, 1.396, 3.128];
    for (const [i, w] of alpha.entries()) expect(Math.abs(post.alpha[i]! - w)).toBeLessThan(1e-3);
    for (const [i, w] of beta.entries()) expect(Math.abs(post.beta[i]! - w)).toBeLessThan(1e-3);
    // predict is the posterior mean.
    const p = s.predict(['a', 'e']);
    expect(p[0]).toBeCloseTo(post.alpha[0]! / (post.alpha[0]! + post.beta[0]!), 14);
  });

  it('the same evidence as mean rewards m·r̄ regardless of how many rollouts carry it', () => {
    const s = new BotsSelector(1);
    s.init(exampleView());
    s.feedback([
      { taskId: 'a', rewards: [0, 1, 0, 0] },
      { taskId: 'b', rewards: [1, 0] },
    ]);
    expect(s.c).toBeCloseTo(0.5625, 12);
    expect(s.posterior().alpha[0]).toBeCloseTo(5, 12);
  });
});

describe('bots: repairs of the reference implementation', () => {
  it('clips rewards outside [0, 1] and records a counted warning (α, β stay positive)', () => {
    const s = new BotsSelector(1);
    s.init(exampleView());
    const r = s.feedback([
      { taskId: 'a', rewards: [-3, 2, 1, 0] },
      { taskId: 'b', rewards: [Number.NaN, 1] },
    ]);
    expect(r.clippedRewards).toBe(2);
    expect(r.droppedRewards).toBe(1);
    expect(r.warnings.join('\n')).toMatch(/2 reward\(s\) outside \[0, 1\] clipped/);
    expect(s.report().clippedRewards).toBe(2);
    expect(s.report().warnings.join('\n')).toMatch(/clipped/);
    const post = s.posterior();
    for (const v of [...post.alpha, ...post.beta]) expect(v).toBeGreaterThan(0);
    // Task a: rewards [0, 1, 1, 0] after clipping → r̄ = 0.5.
    expect(post.alpha[0]).toBeCloseTo(1 + 16 * 0.5, 12);
  });

  it('does not divide by ~0 when the reference columns agree on the step’s tasks', () => {
    const s = new BotsSelector(1);
    s.init(exampleView());
    const r = s.feedback([{ taskId: 'e', rewards: group(0.75) }]); // f0 = f1 = 0.3
    expect(Number.isNaN(s.c)).toBe(true);
    expect(r.warnings.join('\n')).toMatch(/capability not updated/);
    for (const v of s.posterior().alpha) expect(Number.isFinite(v)).toBe(true);
    // Without a capability estimate there is no implicit evidence yet: only the pull to the prior.
    expect(s.posterior().alpha[0]).toBeCloseTo(1, 14);
  });

  it('runs explicit-only (ρ = 0) with a notice when the reference columns are missing', () => {
    const s = new BotsSelector(1);
    s.init({ ids: ['a', 'b', 'c'], features: { weak_pass_rate: Float64Array.from([0.1, 0.2, 0.3]) } });
    expect(s.report().notices.join('\n')).toMatch(/explicit-only \(rho = 0\)/);
    expect(s.currentRho).toBe(0);
    s.feedback([{ taskId: 'a', rewards: group(0.5) }]);
    const post = s.posterior();
    expect(post.alpha[0]).toBeCloseTo(1 + 8, 12);
    expect(post.alpha[1]).toBeCloseTo(1, 14);
  });

  it('adaptive ρ halves ρ when the implicit predictions miss by 0.25 or more on average', () => {
    const s = new BotsSelector(1, { adaptiveRho: true });
    s.init(exampleView());
    s.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    expect(s.currentRho).toBe(0.1); // first step: the predictions miss by 0.075 on average
    const r = s.feedback([
      { taskId: 'c', rewards: group(1) },
      { taskId: 'e', rewards: group(0) },
    ]);
    expect(s.currentRho).toBe(0.05);
    expect(r.warnings.join('\n')).toMatch(/rho lowered to 0.05/);
  });

  it('checkpoints the full posterior', () => {
    const s = new BotsSelector(1);
    s.init(exampleView());
    s.feedback([
      { taskId: 'a', rewards: group(0.25) },
      { taskId: 'b', rewards: group(0.5) },
    ]);
    const state = JSON.parse(JSON.stringify(s.state()));
    expect(Array.from(decodeArray(state.data.alpha, 'float64', 'alpha'))).toEqual(
      Array.from(s.posterior().alpha),
    );
    expect(Array.from(decodeArray(state.data.beta, 'float64', 'beta'))).toEqual(
      Array.from(s.posterior().beta),
    );
    expect(state.data.capability).toBeCloseTo(0.5625, 12);
  });
});

describe('bots: the lazy posterior equals the plain update equations', () => {
  it('over random histories, including capabilities outside [0, 1] (clipped p̃) and tasks without references', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 5, max: 60 }), (seed, n) => {
        const rng = new Rng(seed);
        const f0: number[] = [];
        const f1: number[] = [];
        for (let k = 0; k < n; k++) {
          const x = rng.float();
          const y = rng.float();
          f0.push(k % 11 === 5 ? Number.NaN : Math.min(x, y));
          f1.push(Math.max(x, y));
        }
        const steps: Array<{ idx: number[]; r: number[] }> = [];
        for (let t = 0; t < 40; t++) {
          const idx = rng.sampleDistinct(n, Math.min(n, 1 + rng.int(4)));
          // Phases push c above 1 (all solved), below 0 (none solved), then anywhere.
          const r = idx.map(() => (t < 12 ? 1 : t < 24 ? 0 : rng.float()));
          steps.push({ idx, r });
        }
        const sel = new BotsSelector(seed, { shortlist: 3, grid: 2 });
        sel.init({
          ids: f0.map((_, k) => `t${k}`),
          features: { weak_pass_rate: Float64Array.from(f0), strong_pass_rate: Float64Array.from(f1) },
        });
        for (const st of steps) {
          sel.select(2);
          sel.feedback(st.idx.map((k, j) => ({ taskId: `t${k}`, rewards: [st.r[j]!] })));
        }
        expectPlainPosterior(sel, f0, f1, steps);
      }),
      { numRuns: 25 },
    );
  });
});

describe('bots: tasks rejoin the shared track once forgetting has erased their own evidence', () => {
  it('the explicit set shrinks back, and the posterior still equals the plain equations', () => {
    const rng = new Rng(11);
    const n = 40;
    const f0 = Array.from({ length: n }, () => rng.float() * 0.5);
    const f1 = f0.map((x) => Math.min(1, x + rng.float() * 0.5));
    const steps: Array<{ idx: number[]; r: number[] }> = [];
    for (let t = 0; t < 600; t++) {
      // Everything is observed early on; later only tasks 0–3, with capabilities inside [0, 1].
      const idx = t < 40 ? rng.sampleDistinct(n, 6) : [0, 1, 2, 3];
      steps.push({
        idx,
        r: idx.map((k) =>
          Math.min(1, Math.max(0, f0[k]! + 0.4 * (f1[k]! - f0[k]!) + (rng.float() - 0.5) * 0.2)),
        ),
      });
    }
    const sel = new BotsSelector(1, { shortlist: 5 });
    sel.init({
      ids: f0.map((_, k) => `t${k}`),
      features: { weak_pass_rate: Float64Array.from(f0), strong_pass_rate: Float64Array.from(f1) },
    });
    let most = 0;
    for (const st of steps) {
      sel.feedback(st.idx.map((k, j) => ({ taskId: `t${k}`, rewards: [st.r[j]!] })));
      most = Math.max(most, sel.explicitTasks);
    }
    expect(most).toBeGreaterThan(30);
    expect(sel.explicitTasks).toBe(4);
    expectPlainPosterior(sel, f0, f1, steps);
  });
});

describe('bots: the Thompson shortlist', () => {
  function view(n: number, seed: number): SelectorTaskView {
    const rng = new Rng(seed);
    const weak = new Float64Array(n);
    const strong = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      weak[k] = Math.round(rng.float() * 16) / 16;
      strong[k] = Math.min(1, weak[k]! + Math.round(rng.float() * 8) / 16);
    }
    return {
      ids: Array.from({ length: n }, (_, k) => `t${k}`),
      features: { weak_pass_rate: weak, strong_pass_rate: strong },
    };
  }
  const drive = (params: ConstructorParameters<typeof BotsSelector>[1], n: number) => {
    const s = new BotsSelector(3, params);
    s.init(view(n, 9));
    const out: string[][] = [];
    for (let t = 0; t < 15; t++) {
      const ids = s.select(8);
      out.push(ids);
      s.feedback(
        ids.map((taskId, i) => ({ taskId, rewards: [(t + i) % 2, 1, 0, (t * i) % 3 === 0 ? 1 : 0] })),
      );
    }
    return out;
  };

  it('changes nothing when every task fits on it (N ≤ shortlist): same sequence as without one', () => {
    expect(drive({ shortlist: 300 }, 300)).toEqual(drive({ shortlist: 0 }, 300));
    expect(drive({ shortlist: 300, tau: 0.2 }, 300)).toEqual(drive({ shortlist: 0, tau: 0.2 }, 300));
  });

  it('greedy posterior-mean selection is exact at any size (the grid search prunes only what cannot win)', () => {
    expect(drive({ shortlist: 20, sample: 'mean' }, 500)).toEqual(
      drive({ shortlist: 0, sample: 'mean' }, 500),
    );
  });

  it('holds the tasks with the highest approximate density at p* (checked against a full sort)', () => {
    const s = new BotsSelector(3, { shortlist: 10 });
    s.init(view(400, 4));
    for (let t = 0; t < 6; t++) {
      const ids = s.select(8);
      s.feedback(ids.map((taskId, i) => ({ taskId, rewards: [i % 2, 1, 0] })));
    }
    const { alpha, beta } = s.posterior();
    const brute = densityOrder(alpha, beta)
      .slice(0, 50)
      .map((k) => `t${k}`);
    expect(s.densityRanking(50)).toEqual(brute);
  });
});

describe('bots: one forgetting step per explorer step (updatePer)', () => {
  const example = (params: ConstructorParameters<typeof BotsSelector>[1] = {}) => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, updatePer: 'step', ...params });
    s.init(exampleView());
    return s;
  };
  const stepOne = [
    { taskId: 'a', rewards: group(0.25) },
    { taskId: 'b', rewards: group(0.5) },
  ];

  it('a refill round of the same step adds only its explicit evidence (no forgetting, no implicit evidence)', () => {
    const s = example();
    s.feedback(stepOne, { step: 0 });
    // The worked example's first step, unchanged by the step number.
    for (const [i, w] of [5, 9, 1.27, 2.16, 1.48].entries())
      expect(s.posterior().alpha[i]).toBeCloseTo(w, 12);
    const before = s.posterior();
    s.feedback([{ taskId: 'c', rewards: group(0) }], { step: 0 });
    const after = s.posterior();
    // Task c: + 16·0 successes, + 16·1 failures; every other task keeps its posterior exactly.
    expect(after.alpha[2]).toBe(before.alpha[2]);
    expect(after.beta[2]).toBeCloseTo(before.beta[2]! + 16, 12);
    for (const k of [0, 1, 3, 4]) {
      expect(after.alpha[k]).toBe(before.alpha[k]);
      expect(after.beta[k]).toBe(before.beta[k]);
    }
    // The capability still learns from the round: c_new = (0 − 0)/(0.3 − 0) = 0.
    expect(s.c).toBeCloseTo(0.9 * 0.5625, 12);
    // The next step forgets again: a's α = 0.9·5 + 0.1 + 16·0.25 (observed), d's gets implicit evidence.
    s.feedback([{ taskId: 'a', rewards: group(0.25) }], { step: 1 });
    const next = s.posterior();
    expect(next.alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 4, 12);
    const c = 0.9 * (0.9 * 0.5625) + 0.1 * ((0.25 - 0.1) / 0.4);
    expect(s.c).toBeCloseTo(c, 12);
    expect(next.alpha[3]).toBeCloseTo(0.9 * before.alpha[3]! + 0.1 + 1.6 * (0.5 + c * 0.4), 12);
  });

  it("'feedback' (the default) and 'step' without a step make every call a step, as before", () => {
    const byCall = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1 });
    byCall.init(exampleView());
    const noStep = example();
    byCall.feedback(stepOne, { step: 0 });
    noStep.feedback(stepOne);
    byCall.feedback([{ taskId: 'c', rewards: group(0) }], { step: 0 });
    noStep.feedback([{ taskId: 'c', rewards: group(0) }]);
    expect(byCall.posterior()).toEqual(noStep.posterior());
    // Task a was not observed in the second call: it was pulled toward the prior and got implicit evidence.
    expect(byCall.posterior().alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 1.6 * (0.1 + byCall.c * 0.4), 12);
  });

  it('resumes exactly between two rounds of one step', () => {
    const drive = (s: BotsSelector, from: number, to: number) => {
      const out: string[][] = [];
      for (let call = from; call < to; call++) {
        const ids = s.select(2);
        out.push(ids);
        s.feedback(
          ids.map((taskId, i) => ({ taskId, rewards: group(((call + i) % 3) / 4) })),
          { step: Math.floor(call / 3) },
        );
      }
      return out;
    };
    const whole = example();
    const expected = drive(whole, 0, 9);
    const first = example();
    const head = drive(first, 0, 4); // the state is saved after the 2nd of step 1's three rounds
    const second = example();
    second.load(JSON.parse(JSON.stringify(first.state())));
    expect([...head, ...drive(second, 4, 9)]).toEqual(expected);
    expect(JSON.stringify(second.state())).toBe(JSON.stringify(whole.state()));
  });
});

describe('bots: capability per domain, and evidence after the update (trainedGain)', () => {
  const domainView = (): SelectorTaskView => ({ ...exampleView(), domains: ['x', 'x', 'y', 'y', 'y'] });
  const stepOne = [
    { taskId: 'a', rewards: group(0.25) },
    { taskId: 'b', rewards: group(0.5) },
  ];

  it("capabilityBy 'domain': each domain's own estimate drives its tasks' implicit evidence", () => {
    const s = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, capabilityBy: 'domain' });
    s.init(domainView());
    expect(s.explicitTasks).toBe(5); // every task is stored one by one
    s.feedback(stepOne);
    // Domain y has no estimate yet: it borrows the global c, so step one is the worked example.
    const one = s.posterior();
    for (const [i, w] of [5, 9, 1.27, 2.16, 1.48].entries()) expect(one.alpha[i]).toBeCloseTo(w, 12);
    s.feedback([
      { taskId: 'c', rewards: group(0) },
      { taskId: 'd', rewards: group(1) },
    ]);
    // The global c is as in the paper; domain x was not observed, so task a uses c_x = 0.5625:
    // α = 0.9·5 + 0.1 + 1.6·(0.1 + 0.5625·0.4), not the global 0.57768 (5.1297 in the example).
    expect(s.c).toBeCloseTo(0.9 * 0.5625 + 0.1 * (0.25 / 0.35), 12);
    const two = s.posterior();
    expect(two.alpha[0]).toBeCloseTo(0.9 * 5 + 0.1 + 1.6 * (0.1 + 0.5625 * 0.4), 12);
    expect(two.beta[0]).toBeCloseTo(0.9 * 13 + 0.1 + 1.6 * (0.9 - 0.5625 * 0.4), 12);
    // Task e (domain y, unobserved): c_y = 0.25/0.35 taken as is, but f1 = f0, so p̃ = 0.3.
    expect(two.alpha[4]).toBeCloseTo(0.9 * 1.48 + 0.1 + 1.6 * 0.3, 12);
  });

  it('trainedGain moves the evidence of a mixed group toward 1; uniform groups and the capability are unchanged', () => {
    const plain = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1 });
    const gained = new BotsSelector(1, { m: 16, lambda: 0.1, rho: 0.1, trainedGain: 0.5 });
    for (const s of [plain, gained]) {
      s.init(exampleView());
      s.feedback([...stepOne, { taskId: 'c', rewards: group(0) }]);
    }
    expect(gained.c).toBe(plain.c);
    const g = gained.posterior();
    const p = plain.posterior();
    // a: r̄ = 0.25 counts as 0.25 + 0.5·0.75 = 0.625 → α = 1 + 16·0.625, β = 1 + 16·0.375.
    expect(g.alpha[0]).toBeCloseTo(11, 12);
    expect(g.beta[0]).toBeCloseTo(7, 12);
    expect(p.alpha[0]).toBeCloseTo(5, 12);
    // c: all rewards 0, no gradient, no update to anticipate.
    expect(g.alpha[2]).toBe(p.alpha[2]);
    expect(g.beta[2]).toBe(p.beta[2]);
  });

  it('resumes exactly with per-domain capabilities', () => {
    const make = () => {
      const s = new BotsSelector(5, { capabilityBy: 'domain', trainedGain: 0.2, m: 64, updatePer: 'step' });
      s.init(domainView());
      return s;
    };
    const first = expectResumesExactly(make, 10, 4);
    // A state taken with other domains is refused.
    const other = new BotsSelector(5, { capabilityBy: 'domain' });
    other.init({ ...exampleView(), domains: ['x', 'z', 'y', 'y', 'y'] });
    expect(() => other.load(JSON.parse(JSON.stringify(first.state())))).toThrow(/different domains/);
  });
});
