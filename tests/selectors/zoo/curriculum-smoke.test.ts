import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURRICULUM_ALL } from '../../../bench/learning-curriculum/spec.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

// CI smoke of the real-learner leaderboard: every method once (1 seed, 4 tiny updates) and the
// overhead table on a 1,000-task pool. It checks the output's shape, not the result.
describe('bench curriculum --selectors all (smoke)', () => {
  it('reports every method with ratios to random, intervals, effective ratio and ms per step', () => {
    const r = spawnSync(
      process.execPath,
      [
        'bench/learning-curriculum/main.ts',
        '--smoke',
        '--seeds',
        '1',
        '--selectors',
        'all',
        '--overhead-tasks',
        '1000',
        '--json',
        '--quiet',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.seeds).toEqual([6]);
    const names = out.summary.map((s: { selector: string }) => s.selector);
    expect(names).toEqual([...CURRICULUM_ALL]);
    expect(names).toEqual(
      expect.arrayContaining(['random', 'bots', 'shared_ability', 'mopps', 'pcl', 'greso']),
    );
    for (const s of out.summary) {
      for (const k of ['stepsRatio', 'rolloutsRatio', 'effectiveRatio'])
        expect(Object.keys(s[k]).sort()).toEqual(['hi', 'lo', 'ratio']);
      expect(s.effective).toBeGreaterThanOrEqual(0);
      expect(s.effective).toBeLessThanOrEqual(1);
    }
    expect(out.overhead.map((o: { selector: string }) => o.selector)).toEqual(names);
    for (const o of out.overhead) expect(o.tasks).toBe(1000);
  }, 120_000);
});
