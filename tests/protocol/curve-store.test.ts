import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CurveStore } from '../../bench/learning-curriculum/curve-store.ts';
import type { LearnerSettings, LearningCurve } from '../../bench/learning-curriculum/learner.ts';

const settings: LearnerSettings = {
  steps: 4,
  trainGroups: 4,
  batchTasks: 8,
  repeat: 4,
  maxRounds: 2,
  every: 2,
  lr: 0.003,
  oracleEvery: 1,
  maxSteps: 8,
};
const curve = (selector: string, seed: number): LearningCurve => ({
  selector,
  seed,
  points: [{ step: 0, updates: 0, rollouts: 0, accuracy: 0.3, levels: {} }],
  effective: 0.5,
  rollouts: 0,
  distinct: 0,
  picked: {},
  seconds: 1,
});
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('bench curriculum --curves (CurveStore)', () => {
  it('reuses a stored run only for the same learner, settings, method, seed and budget', () => {
    const dir = mkdtempSync(join(tmpdir(), 'winnow-curves-'));
    dirs.push(dir);
    const file = join(dir, 'runs.jsonl');
    const ctx = { learner: 'curriculum', settings, extra: { k: 2 } };
    new CurveStore(file, ctx).put('pcl', 6, 1000, curve('pcl', 6));
    const again = new CurveStore(file, ctx);
    expect(again.get('pcl', 6, 1000)).toEqual(curve('pcl', 6));
    expect(again.has('pcl', 6)).toBe(true);
    expect(again.get('pcl', 6, 999)).toBeUndefined();
    expect(again.get('pcl', 7, 1000)).toBeUndefined();
    expect(again.has('bots', 6)).toBe(false);
    expect(new CurveStore(file, { ...ctx, learner: 'arithmetic' }).get('pcl', 6, 1000)).toBeUndefined();
    expect(
      new CurveStore(file, { ...ctx, settings: { ...settings, lr: 0.01 } }).get('pcl', 6, 1000),
    ).toBeUndefined();
  });

  it('names the line of a torn file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'winnow-curves-'));
    dirs.push(dir);
    const file = join(dir, 'runs.jsonl');
    writeFileSync(file, '{"key":"a","curve":{}}\n{"key":');
    expect(() => new CurveStore(file, { learner: 'curriculum', settings, extra: {} })).toThrow(
      /runs\.jsonl line 2 is not JSON/,
    );
  });
});
