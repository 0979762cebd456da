import { describe, expect, it } from 'vitest';
import { hashSeed, Rng } from '../../src/core/rng.ts';
import { createSelector } from '../../src/selectors/registry.ts';
import { SharedAbilitySelector } from '../../src/selectors/shared-ability.ts';
import { LearnerSim, type LearnerSimConfigInput } from '../../src/selectors/sim/learner-sim.ts';

function drive(sel: SharedAbilitySelector, sim: LearnerSim, steps: number): void {
  for (let t = 0; t < steps; t++) {
    const ids = sel.select(32);
    const results = sim.rollout(ids, t);
    sel.feedback(results);
    sim.learn(results);
  }
}

describe('shared_ability: what it learns', () => {
  it('with informative references: positive reference weights, a positive practice gain, calibrated predictions', () => {
    const sim = new LearnerSim({}, 2);
    const sel = new SharedAbilitySelector(2);
    sel.init(sim.view());
    drive(sel, sim, 60);
    const s = sel.summary();
    expect(s.weights).toHaveLength(2);
    expect(s.weights[0]! + s.weights[1]!).toBeGreaterThan(0.5);
    // The simulated learner gains ≈ 0.2 × a ≈ 0.4 log-odds per mixed group trained on.
    expect(s.practiceEffect).toBeGreaterThan(0.15);
    expect(s.practiceEffect).toBeLessThan(0.8);
    // Its predicted pass rates on a fresh batch track the truth.
    const ids = sel.select(32);
    const p = sel.predict(ids);
    let mse = 0;
    ids.forEach((id, i) => {
      mse += (p[i]! - sim.passRate(sim.indexOf(id))) ** 2;
    });
    expect(mse / ids.length).toBeLessThan(0.05);
  });

  it('with useless references: the references explain little of an untried task’s predicted spread', () => {
    // Share of the across-task variance of the prior mean that comes from the reference columns,
    // against the per-task residual variance: high when they are informative, low when useless.
    const share = (cfg: LearnerSimConfigInput) => {
      const sim = new LearnerSim(cfg, 3);
      const sel = new SharedAbilitySelector(3);
      const view = sim.view();
      sel.init(view);
      drive(sel, sim, 60);
      const { weights, residualSd } = sel.summary();
      const lg = (v: number) =>
        Math.log(Math.min(0.98, Math.max(0.02, v)) / (1 - Math.min(0.98, Math.max(0.02, v))));
      const w = view.features['weak_pass_rate']!;
      const st = view.features['strong_pass_rate']!;
      const part = Array.from(w, (x, k) => weights[0]! * lg(x) + weights[1]! * lg(st[k]!));
      const mean = part.reduce((a, b) => a + b, 0) / part.length;
      const v = part.reduce((a, b) => a + (b - mean) ** 2, 0) / part.length;
      return { share: v / (v + residualSd ** 2), residualSd };
    };
    const good = share({});
    const useless = share({ references: 'useless' });
    expect(good.share).toBeGreaterThan(0.6);
    expect(useless.share).toBeLessThan(0.25);
    expect(useless.residualSd).toBeGreaterThan(2 * good.residualSd);
  });

  it('without reference columns: a notice, domain offsets only, still selects and learns', () => {
    const sim = new LearnerSim({ references: 'none' }, 4);
    const sel = new SharedAbilitySelector(4);
    sel.init(sim.view());
    expect(sel.report().notices.join('\n')).toMatch(/not both present; using domain offsets/);
    drive(sel, sim, 20);
    const s = sel.summary();
    expect(s.weights).toEqual([]);
    expect(Object.keys(s.offsets).sort()).toEqual(['d0', 'd1', 'd2', 'd3']);
    expect(sel.report().mixedGroups).toBeGreaterThan(0.6 * 20 * 32);
  });

  it('new tasks from a new domain get their own offset', () => {
    const sim = new LearnerSim({}, 5);
    const sel = new SharedAbilitySelector(5);
    sel.init(sim.view());
    drive(sel, sim, 5);
    const extra = sim.arrivals(0);
    expect(extra).toBeNull();
    sel.addTasks({
      ids: ['x1', 'x2'],
      features: {
        weak_pass_rate: Float64Array.from([0.2, 0.4]),
        strong_pass_rate: Float64Array.from([0.6, 0.9]),
      },
      domains: ['brand-new', 'brand-new'],
    });
    expect(Object.keys(sel.summary().offsets)).toContain('brand-new');
    const p = sel.predict(['x1', 'x2']);
    expect(p[0]).toBeGreaterThan(0);
    expect(p[1]).toBeLessThan(1);
  });
});

describe('shared_ability: the grid search is exact', () => {
  for (const [label, simCfg] of [
    ['informative references', {}],
    ['no references', { references: 'none' }],
    ['continuous references', { refSamples: 0 }],
  ] as Array<[string, LearnerSimConfigInput]>) {
    for (const mode of ['expected', 'thompson'] as const) {
      it(`${label}, ${mode}: same selections as scoring every task`, () => {
        const runs = (['grid', 'scan'] as const).map((search) => {
          const sim = new LearnerSim({ ...simCfg, tasks: 1500 }, 6);
          const sel = createSelector(
            { type: 'shared_ability', params: { search, mode, shortlist: 100, grid: 8 } },
            sim.view(),
            6,
          );
          const out: string[][] = [];
          for (let t = 0; t < 25; t++) {
            const ids = sel.select(16);
            out.push(ids);
            const r = sim.rollout(ids, t);
            sel.feedback(r);
            sim.learn(r);
          }
          return out;
        });
        expect(runs[0]).toEqual(runs[1]);
      });
    }
  }
});

describe('shared_ability: the candidate set (candidates > 0)', () => {
  for (const mode of ['expected', 'thompson'] as const) {
    it(`${mode}: picks the best of candidates × n uniform tasks by the full search's rule`, () => {
      const sim = new LearnerSim({ tasks: 400, refSamples: 0 }, 4);
      const view = sim.view();
      const sel = createSelector(
        { type: 'shared_ability', params: { mode, candidates: 4, shortlist: 0 } },
        view,
        9,
      );
      const picked = sel.select(16);
      // The selector's stream: the candidate draw comes first (BaseSelector seeds it with 'selector').
      const pool = new Rng(hashSeed('selector', 9)).sampleDistinct(400, 64).sort((a, b) => a - b);
      const poolIds = pool.map((k) => view.ids[k]!);
      expect(new Set(picked).size).toBe(16);
      for (const id of picked) expect(poolIds).toContain(id);
      if (mode === 'expected') {
        // The same model over the candidates alone, scoring every task: the same 16, in the same order.
        const sub = {
          ids: poolIds,
          domains: pool.map((k) => String(view.domains![k]!)),
          features: Object.fromEntries(
            Object.entries(view.features).map(([f, col]) => [f, Float64Array.from(pool, (k) => col[k]!)]),
          ),
        };
        const full = createSelector({ type: 'shared_ability', params: { search: 'scan' } }, sub, 9);
        expect(picked).toEqual(full.select(16));
      }
    });
  }

  it('is off below candidates × n ≥ tasks: the full search decides', () => {
    const sim = new LearnerSim({ tasks: 60 }, 4);
    const a = createSelector({ type: 'shared_ability', params: { candidates: 4 } }, sim.view(), 3);
    const b = createSelector({ type: 'shared_ability' }, sim.view(), 3);
    expect(a.select(16)).toEqual(b.select(16));
  });
});
