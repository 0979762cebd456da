import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { curriculumLineup, entryInformation } from '../../bench/learning-curriculum/lineup.ts';
import { CURRICULUM_ALL, CURRICULUM_SELECTORS } from '../../bench/learning-curriculum/spec.ts';
import { informationCharge, readsOracle } from '../../bench/protocol/information.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('the real-learner line-up under the protocol', () => {
  const lineup = curriculumLineup(0.5, 0.2, 'level');
  it('charges every column measured on this learner, and labels the exact one an oracle', () => {
    for (const name of CURRICULUM_SELECTORS) {
      const info = entryInformation(lineup[name], ['level'], 800, 2);
      const reads = lineup[name].references;
      if (reads === 'measured') expect(informationCharge(info)).toBe(1600);
      else expect(informationCharge(info)).toBe(0);
      expect(readsOracle(info)).toBe(reads === 'exact' || name === 'oracle');
    }
  });
  it('puts only methods at published defaults, the oracles, into --selectors all', () => {
    for (const name of CURRICULUM_ALL)
      if (lineup[name].tuning.kind !== 'published_defaults') expect(lineup[name].references).toBe('exact');
  });
});

// CI smoke: one seed, 4 updates, both learners; checks the JSON shape, not the result.
describe('bench curriculum --selectors all --json (smoke)', () => {
  for (const learner of ['curriculum', 'arithmetic'])
    it(`${learner}: per method AUC and budget accuracies with intervals, targets, charge, tuning; oracles unranked`, () => {
      const r = spawnSync(
        process.execPath,
        [
          'bench/learning-curriculum/main.ts',
          '--smoke',
          '--seeds',
          '1',
          '--learner',
          learner,
          '--selectors',
          'all',
          '--json',
          '--quiet',
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.learner).toBe(learner);
      expect(out.seeds).toEqual([6]);
      const p = out.protocol;
      expect(p.baseline).toBe('random');
      expect(p.rankingTuning).toEqual({ kind: 'published_defaults' });
      expect(p.methods.map((m: { method: string }) => m.method)).toEqual([...CURRICULUM_ALL]);
      const interval = ['hi', 'lo', 'mean', 'n'];
      for (const m of p.methods) {
        expect(Object.keys(m.auc.vsBaseline).sort()).toEqual(interval);
        expect(Object.keys(m.auc.vsBestOther).sort()).toEqual([...interval, 'other'].sort());
        expect(m.budgets.map((b: { share: number }) => b.share)).toEqual([0.25, 0.5, 1]);
        for (const b of m.budgets) expect(Object.keys(b.vsBaseline).sort()).toEqual(interval);
        expect(m.targets.map((t: { share: number }) => t.share)).toEqual([0.5, 0.75, 0.9]);
        expect(typeof m.information.chargedRollouts).toBe('number');
        expect(m.tuning.kind).toBeTruthy();
      }
      const byName = new Map(p.methods.map((m: { method: string }) => [m.method, m]));
      const charged = byName.get('bots_ref') as { information: { chargedRollouts: number } };
      expect(charged.information.chargedRollouts).toBe(2 * out.pool.tasks);
      for (const oracle of ['oracle', 'bots_ref_tuned']) {
        const m = byName.get(oracle) as { rank: number | null; unranked: string };
        expect(m.rank).toBeNull();
        expect(m.unranked).toMatch(/^oracle/);
      }
      const ranks = p.methods
        .map((m: { rank: number | null }) => m.rank)
        .filter((x: number | null) => x !== null);
      expect([...ranks].sort((a: number, b: number) => a - b)).toEqual(
        ranks.map((_: number, i: number) => i + 1),
      );
      for (const m of p.methods) expect(['oracle', 'bots_ref_tuned']).not.toContain(m.auc.vsBestOther.other);
    }, 300_000);
});
