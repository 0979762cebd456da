import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LearningCurve } from '../../bench/learning-curriculum/learner.ts';
import { bootstrapRatio, commonTarget, stepsToTarget } from '../../bench/learning-curriculum/stats.ts';
import { Rng } from '../../src/core/rng.ts';
import { additionCarries } from '../../src/explorer/tasks/arithmetic.ts';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import {
  CURRICULUM_LEVELS,
  curriculumDatasets,
  drawCurriculumProblem,
  generateCurriculumTasks,
} from '../../src/explorer/tasks/curriculum.ts';
import { isEncodable } from '../../src/tiny/vocab.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('curriculum task family', () => {
  it('draws only problems inside each level: operand digits, operator, carry range, true answer', () => {
    for (const level of CURRICULUM_LEVELS) {
      const rng = new Rng(`test:${level.name}`);
      let made = 0;
      for (let i = 0; i < 400; i++) {
        const p = drawCurriculumProblem(level, rng);
        if (!p) continue;
        made++;
        const operands = p.prompt.slice(0, -1).split(level.op).map(Number);
        expect(operands.map((x) => String(x).length)).toEqual(level.digits);
        expect(p.carries).toBeGreaterThanOrEqual(level.minCarries);
        expect(p.carries).toBeLessThanOrEqual(level.maxCarries);
        const value = operands.slice(1).reduce((a, b) => (level.op === '+' ? a + b : a - b), operands[0]!);
        expect(p.answer).toBe(String(value));
        if (level.op === '+' && operands.length === 2)
          expect(p.carries).toBe(additionCarries(operands[0]!, operands[1]!));
        expect(isEncodable(p.prompt) && isEncodable(p.answer)).toBe(true);
      }
      expect(made).toBeGreaterThan(0);
    }
  });

  it('is deterministic in the seed, distinct, and tags level, difficulty and domain', () => {
    const a = generateCurriculumTasks({ seed: 3, perLevel: 10 });
    const b = generateCurriculumTasks({ seed: 3, perLevel: 10 });
    expect(a).toEqual(b);
    expect(new Set(a.map((t) => t.prompt)).size).toBe(a.length);
    expect(a.length).toBe(CURRICULUM_LEVELS.length * 10);
    const last = CURRICULUM_LEVELS.length - 1;
    for (const t of a) {
      const level = t.features!['level'] as number;
      expect(t.meta.domain).toBe(CURRICULUM_LEVELS[level]!.name);
      expect(t.features!['difficulty']).toBeCloseTo(level / last, 6);
    }
  });

  it('datasets/curriculum matches its recipe, and train shares no prompt with held-out', async () => {
    const { train, heldout } = curriculumDatasets();
    const onDisk = await loadTaskFile(resolve(ROOT, 'datasets/curriculum/train.jsonl'));
    const heldDisk = await loadTaskFile(resolve(ROOT, 'datasets/curriculum/heldout.jsonl'));
    expect(onDisk).toEqual(train);
    expect(heldDisk).toEqual(heldout);
    expect(train.length).toBe(800);
    expect(heldout.length).toBe(300);
    const held = new Set(heldout.map((t) => t.prompt));
    expect(train.filter((t) => held.has(t.prompt)).length).toBe(0);
  });
});

const curve = (accs: number[], every = 4, perStep = 100): LearningCurve => ({
  selector: 'x',
  seed: 1,
  points: accs.map((accuracy, k) => ({
    step: k * every,
    updates: k * every,
    rollouts: k * every * perStep,
    accuracy,
    levels: {},
  })),
  effective: 0.5,
  rollouts: (accs.length - 1) * every * perStep,
  distinct: 0,
  picked: {},
  seconds: 0,
});

describe('curriculum bench statistics', () => {
  it('steps to target interpolate between the evaluations around the first crossing', () => {
    const c = curve([0.3, 0.35, 0.45, 0.4, 0.5]);
    const at = (t: number) => {
      const hit = stepsToTarget(c, t)!;
      return [Number(hit.step.toFixed(9)), Number(hit.rollouts.toFixed(6))];
    };
    expect(at(0.4)).toEqual([6, 600]);
    expect(at(0.45)).toEqual([8, 800]);
    expect(at(0.5)).toEqual([16, 1600]);
    expect(stepsToTarget(c, 0.51)).toBeUndefined();
  });

  it('the common target is the start plus a share of the mean gain of the random runs', () => {
    expect(commonTarget([curve([0.3, 0.5]), curve([0.3, 0.7])], 0.5)).toBeCloseTo(0.45, 12);
  });

  it('bootstrap ratio: ratio of sums, a seeded interval around it, NaN without pairs', () => {
    const a = [2, 4, 6, 8, 10];
    const b = [4, 8, 12, 16, 20];
    expect(bootstrapRatio(a, b, 1)).toEqual({ ratio: 0.5, lo: 0.5, hi: 0.5 });
    const noisy = bootstrapRatio([1, 3, 2, 5, 4], [2, 2, 4, 4, 6], 7);
    expect(noisy.ratio).toBeCloseTo(15 / 18, 12);
    expect(noisy.lo).toBeLessThan(noisy.ratio);
    expect(noisy.hi).toBeGreaterThan(noisy.ratio);
    expect(bootstrapRatio([1, 3, 2, 5, 4], [2, 2, 4, 4, 6], 7)).toEqual(noisy);
    expect(Number.isNaN(bootstrapRatio([], [], 1).ratio)).toBe(true);
  });
});

describe('bench curriculum --smoke', () => {
  it('prints the result shape: every selector, intervals, per-level accuracy, curves (values not checked)', () => {
    const r = spawnSync(
      process.execPath,
      ['bench/learning-curriculum/main.ts', '--smoke', '--json', '--quiet', '--html', '/dev/null'],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.bench).toBe('curriculum');
    expect(out.seeds).toEqual([6, 7]);
    expect(out.summary.map((s: { selector: string }) => s.selector)).toEqual([
      'random',
      'bots',
      'shared_ability',
    ]);
    const levels = CURRICULUM_LEVELS.map((l) => l.name);
    expect(out.pool.levels).toEqual(levels);
    expect(out.pool.tasks).toBe(800);
    for (const s of out.summary) {
      expect(Object.keys(s.finalByLevel)).toEqual(levels);
      expect(Object.keys(s.pickedByLevel)).toEqual(levels);
      // Shares of the rolled-out groups: they add up to one.
      expect(Object.values(s.pickedByLevel as Record<string, number>).reduce((a, b) => a + b, 0)).toBeCloseTo(
        1,
        9,
      );
      expect(s.runs).toBe(2);
    }
    expect(out.protocol.methods.map((m: { method: string }) => m.method)).toEqual([
      'random',
      'bots',
      'shared_ability',
    ]);
    expect(out.curves).toHaveLength(6);
    // random: 4 updates, held-out accuracy every 2: steps 0, 2, 4; the others spend random's
    // rollouts of that seed (the last evaluation at or past it).
    for (const c of out.curves) {
      const steps = c.points.map((p: { step: number }) => p.step);
      if (c.selector === 'random') expect(steps).toEqual([0, 2, 4]);
      const budget = out.protocol.budgetPerSeed[String(c.seed)];
      const last = c.points[c.points.length - 1];
      if (c.selector !== 'random' && last.step < out.settings.maxSteps)
        expect(last.rollouts).toBeGreaterThanOrEqual(budget);
    }
  });

  it('writes an HTML page with one chart per level plus the overall one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'winnow-curriculum-'));
    const file = join(dir, 'curves.html');
    const r = spawnSync(
      process.execPath,
      ['bench/learning-curriculum/main.ts', '--smoke', '--quiet', '--selectors', 'random', '--html', file],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    expect(r.status).toBe(0);
    const html = readFileSync(file, 'utf8');
    rmSync(dir, { recursive: true, force: true });
    expect(html.match(/<figure>/g)).toHaveLength(CURRICULUM_LEVELS.length + 1);
    expect(r.stdout).toContain('final held-out accuracy (greedy) per level');
  });
});
