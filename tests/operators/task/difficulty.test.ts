import { describe, expect, it } from 'vitest';
import { difficultyOp, heuristicFeatures } from '../../../src/operators/task/difficulty.ts';
import { gsm8kTasks, reasons, run, task } from './helpers.ts';

const janet = task(
  'janet',
  'Janet has 16 eggs. She eats 3 and bakes with 4. She sells the rest for $2 each. How much does she make?',
  {
    answer: '18',
    meta: { solution: 'She has 16-3-4=<<16-3-4=9>>9 left.\nShe makes 9*2=<<9*2=18>>18.\n#### 18' },
  },
);

describe('difficulty (heuristic)', () => {
  it('measures words, numbers, annotated steps and operations', () => {
    expect(heuristicFeatures(janet, 'solution')).toEqual({
      prompt_words: 23,
      prompt_numbers: 4,
      num_steps: 2,
      num_ops: 3,
    });
  });
  it('combines them with the documented formula (golden)', async () => {
    const r = await run(difficultyOp, {}, [janet]);
    // 0.2·min(1, 23/100) + 0.2·min(1, 4/8) + 0.4·min(1, 2/8) + 0.2·min(1, 3/12), over weights summing to 1
    expect(r.rows[0]!.features).toEqual({
      prompt_words: 23,
      prompt_numbers: 4,
      num_steps: 2,
      num_ops: 3,
      difficulty: expect.closeTo(0.296, 12),
    });
  });
  it('honours weights, scales, target and keepFeatures', async () => {
    const r = await run(
      difficultyOp,
      {
        weights: { prompt_words: 0, prompt_numbers: 0, num_ops: 0 },
        scales: { num_steps: 4 },
        target: 'steps01',
        keepFeatures: false,
      },
      [janet],
    );
    expect(r.rows[0]!.features).toEqual({ steps01: 0.5 });
    expect(
      difficultyOp.params.safeParse({
        weights: { prompt_words: 0, prompt_numbers: 0, num_steps: 0, num_ops: 0 },
      }).success,
    ).toBe(false);
  });
  it('counts solution lines when there are no annotations, and 0 without a solution', () => {
    const lines = task('l', 'Q', { meta: { solution: 'First.\n\nSecond.\nThird.\n#### 3' } });
    expect(heuristicFeatures(lines, 'solution').num_steps).toBe(3);
    expect(heuristicFeatures(task('n', 'Q', { answer: '3' }), 'solution').num_steps).toBe(0);
  });
  it('orders GSM8K problems sensibly: more steps, more difficulty on average', async () => {
    const r = await run(difficultyOp, {}, gsm8kTasks(200));
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const few = r.rows.filter((t) => t.features['num_steps']! <= 2).map((t) => t.features['difficulty']!);
    const many = r.rows.filter((t) => t.features['num_steps']! >= 5).map((t) => t.features['difficulty']!);
    expect(few.length).toBeGreaterThan(10);
    expect(many.length).toBeGreaterThan(10);
    expect(mean(many)).toBeGreaterThan(mean(few) + 0.15);
    for (const t of r.rows) expect(t.features['difficulty']).toBeGreaterThanOrEqual(0);
    for (const t of r.rows) expect(t.features['difficulty']).toBeLessThanOrEqual(1);
  });
});

describe('difficulty (columns)', () => {
  it('1 − pass_rate from a feature column', async () => {
    const r = await run(difficultyOp, { mode: 'columns', columns: [{ path: 'pass_rate', invert: true }] }, [
      task('a', 'q', { features: { pass_rate: 0.25 } }),
    ]);
    expect(r.rows[0]!.features).toEqual({ pass_rate: 0.25, difficulty: 0.75 });
  });
  it('weighted mean of scaled, clipped columns from features and meta', async () => {
    const params = {
      mode: 'columns',
      columns: [
        { path: 'features.f0', invert: true },
        { path: 'meta.f1', invert: true, weight: 3 },
      ],
    };
    const r = await run(difficultyOp, params, [
      task('a', 'q', { features: { f0: 0.2 }, meta: { f1: '0.6' } }),
    ]);
    expect(r.rows[0]!.features['difficulty']).toBeCloseTo(0.5, 12);
    const scaled = await run(
      difficultyOp,
      { mode: 'columns', columns: [{ path: 'meta.level', min: 1, max: 5 }] },
      [task('a', 'q', { meta: { level: 3 } }), task('b', 'q', { meta: { level: 9 } })],
    );
    expect(scaled.rows.map((t) => t.features['difficulty'])).toEqual([0.5, 1]);
  });
  it('drops (or keeps) tasks missing a column, naming it', async () => {
    const params = { mode: 'columns', columns: [{ path: 'pass_rate', invert: true }] };
    const rows = [task('a', 'q'), task('b', 'q', { features: { pass_rate: 1 } })];
    const dropped = await run(difficultyOp, params, rows);
    expect(reasons(dropped)).toEqual([['a', 'no numeric features.pass_rate for difficulty']]);
    const kept = await run(difficultyOp, { ...params, onMissing: 'keep' }, rows);
    expect(kept.rows.map((t) => t.features['difficulty'])).toEqual([undefined, 0]);
    expect(kept.metrics).toEqual({ missing_columns: 1 });
    expect(difficultyOp.params.safeParse({ mode: 'columns' }).success).toBe(false);
  });
});
