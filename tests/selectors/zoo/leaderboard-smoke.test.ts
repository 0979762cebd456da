import { describe, expect, it } from 'vitest';
import { selectionHtml } from '../../../bench/selection/html.ts';
import { ALL_NAMES } from '../../../bench/selection/lineup.ts';
import { runSelectionBench } from '../../../bench/selection/runner.ts';

// CI smoke of the simulator leaderboard: 1 seed, 6 steps, a 2,000-task overhead pool. It checks the
// output's shape (every method, every number the issue asks for), not the result.
describe('bench selection --selectors all (smoke)', () => {
  it('reports every method with ratios to random, intervals, effective ratio and ms per step', async () => {
    const r = await runSelectionBench({
      selectors: ['all'],
      seeds: 1,
      firstSeed: 6,
      steps: 6,
      overheadTasks: 2000,
    });
    const sc = r.scenarios[0]!;
    expect(sc.seeds).toEqual([6]);
    expect(sc.selectors.map((s) => s.selector).sort()).toEqual([...ALL_NAMES].sort());
    // The protocol: every method with AUC and budget accuracies, paired intervals, charge and tuning;
    // the oracle and the seeds-1–5 successor variant outside the ranking.
    const p = sc.protocol;
    expect(p.methods.map((m) => m.method).sort()).toEqual([...ALL_NAMES].sort());
    for (const m of p.methods) {
      expect(Object.keys(m.auc.vsBaseline).sort()).toEqual(['hi', 'lo', 'mean', 'n']);
      expect(m.budgets.map((b) => b.share)).toEqual([0.25, 0.5, 1]);
      expect(m.targets.map((t) => t.share)).toEqual([0.5, 0.75, 0.9]);
      expect(m.information.chargedRollouts).toBe(0);
    }
    const oracle = p.methods.find((m) => m.method === 'oracle')!;
    expect(oracle.rank).toBeNull();
    expect(oracle.unranked).toMatch(/^oracle/);
    expect(p.methods.find((m) => m.method === 'shared_ability_cand')!.rank).toBeNull();
    // headroom's defaults were tuned (asymmetric): reported beside the ranking, like the two above.
    expect(p.methods.find((m) => m.method === 'headroom')!.rank).toBeNull();
    expect(p.methods.filter((m) => m.rank !== null)).toHaveLength(ALL_NAMES.length - 3);
    // Every method spent random's rollouts (or ran its 3× cap of steps).
    const budget = p.budgetPerSeed['6']!;
    for (const m of p.methods) expect(m.budgets[2]!.rollouts).toBe(budget);
    for (const s of sc.selectors) {
      for (const k of ['stepsRatio', 'rolloutsRatio'] as const) {
        expect(Object.keys(s[k]).sort()).toEqual(['hi', 'lo', 'ratio']);
        expect(s[k].lo).toBeLessThanOrEqual(s[k].hi);
      }
      expect(s.etr.mean).toBeGreaterThanOrEqual(0);
      expect(s.etr.mean).toBeLessThanOrEqual(1);
      expect(s.rolloutsToTarget.mean).toBeGreaterThan(0);
    }
    expect(sc.selectors[0]!.stepsRatio.ratio).toBe(1);
    // The oracle is not a selector that can be timed.
    expect(r.overhead.map((o) => o.selector).sort()).toEqual(ALL_NAMES.filter((n) => n !== 'oracle').sort());
    for (const o of r.overhead) {
      expect(o.tasks).toBe(2000);
      expect(o.medianMs).toBeGreaterThanOrEqual(0);
    }
    expect(sc.curves.map((c) => c.selector).sort()).toEqual([...ALL_NAMES].sort());
    expect(sc.curves[0]!.steps).toEqual([1, 2, 3, 4, 5, 6]);
    const html = selectionHtml(r);
    expect(html).toContain('<svg');
    expect(html).toContain('held-out accuracy by rollouts spent');
  }, 30_000);
});
