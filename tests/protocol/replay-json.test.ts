import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPLAY_METHOD_NAMES } from '../../bench/replay/methods.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

// CI smoke (issue 42): one seed, 3 updates, both learners; checks the JSON shape, not the result.
describe('bench replay --methods all --json (smoke)', () => {
  it('every method on both learners: AUC and budget accuracies with intervals vs fifo, updates, rows trained and replayed', () => {
    const r = spawnSync(
      process.execPath,
      ['bin/winnow.js', 'bench', 'replay', '--smoke', '--methods', 'all', '--json', '--quiet'],
      { cwd: ROOT, encoding: 'utf8', timeout: 600_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.bench).toBe('replay');
    expect(out.learners.map((l: { learner: string }) => l.learner)).toEqual(['curriculum', 'arithmetic']);
    const interval = ['hi', 'lo', 'mean', 'n'];
    for (const l of out.learners) {
      expect(l.seeds).toEqual([6]);
      const p = l.protocol;
      expect(p.baseline).toBe('fifo');
      expect(p.rankingTuning).toEqual({ kind: 'published_defaults' });
      expect(p.methods.map((m: { method: string }) => m.method)).toEqual(REPLAY_METHOD_NAMES);
      expect(p.methods.map((m: { rank: number }) => m.rank).sort((a: number, b: number) => a - b)).toEqual(
        REPLAY_METHOD_NAMES.map((_, i) => i + 1),
      );
      for (const m of p.methods) {
        expect(Object.keys(m.auc.vsBaseline).sort()).toEqual(interval);
        expect(m.auc.vsBaseline.n).toBe(1);
        expect(m.budgets.map((b: { share: number }) => b.share)).toEqual([0.25, 0.5, 1]);
        for (const b of m.budgets) {
          expect(Object.keys(b.vsBaseline).sort()).toEqual(interval);
          expect(typeof b.updates).toBe('number');
          expect(b.rollouts).toBeGreaterThan(0);
        }
        expect(m.information.chargedRollouts).toBe(0);
      }
      expect(l.charges.map((c: { method: string }) => c.method)).toEqual(REPLAY_METHOD_NAMES);
      const fifo = l.charges[0];
      expect(fifo.replayedPerUpdate).toBe(0);
      expect(fifo.trainedVsFifo).toBe(1);
      for (const c of l.charges) {
        expect(c.updates).toBeGreaterThan(0);
        expect(c.trainedPerUpdate).toBeGreaterThan(0);
        expect(c.replayedPerUpdate).toBeLessThanOrEqual(c.trainedPerUpdate);
      }
      // The replay methods that draw from the whole buffer replay from the second update on.
      for (const name of ['uniform', 'version_priority', 'advantage_priority', 'dots_replay'])
        expect(
          l.charges.find((c: { method: string }) => c.method === name).replayedPerUpdate,
        ).toBeGreaterThan(0);
      expect(l.curves).toHaveLength(REPLAY_METHOD_NAMES.length);
    }
  }, 600_000);
});
