import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetfulAnswer } from '../../src/explorer/tasks/arithmetic.ts';
import { loadArithmeticDatasets } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { evaluateAccuracy } from '../../src/tiny/evaluate.ts';
import type { TinyPolicy } from '../../src/tiny/policy.ts';
import { SupervisedTrainer } from '../../src/tiny/supervised-trainer.ts';
import { loadWarmStart, warmStartDir } from '../../src/tiny/warm-start.ts';
import { WarmStartRecipeSchema, warmStartStream } from '../../src/tiny/warm-start-recipe.ts';
import { readTinyWeights } from '../../src/tiny/weights-file.ts';

let policy: TinyPolicy;
beforeAll(async () => {
  policy = await loadWarmStart();
});
afterAll(() => policy.dispose());

describe('the shipped warm start', () => {
  it('is the default recipe, small, and records its held-out accuracy', async () => {
    const { config, meta } = await readTinyWeights(warmStartDir());
    expect(config).toEqual({ hidden: 128, layers: 1, initSeed: 0, vocabSize: 17 });
    expect(meta.recipe).toEqual(JSON.parse(JSON.stringify(WarmStartRecipeSchema.parse({}))));
    expect(policy.getWeights().reduce((a, w) => a + w.length, 0)).toBe(58_385);
    const { heldout } = await loadArithmeticDatasets();
    const greedy = await evaluateAccuracy(policy, heldout, { temperature: 0 });
    const recorded = meta.heldout as { greedy: number; greedyByDomain: Record<string, number> };
    expect(Math.round(greedy.accuracy * 1e4) / 1e4).toBe(recorded.greedy);
    expect(
      Object.fromEntries(
        Object.entries(greedy.groups).map(([k, v]) => [k, Math.round(v.accuracy * 1e4) / 1e4]),
      ),
    ).toEqual(recorded.greedyByDomain);
  });

  it('solves easy held-out problems and mostly fails hard ones', async () => {
    const { heldout } = await loadArithmeticDatasets();
    const byBucket = await evaluateAccuracy(policy, heldout, {
      temperature: 0,
      groupBy: (t) =>
        (t.features.difficulty ?? 0) < 0.2 ? 'easy' : (t.features.difficulty ?? 0) < 0.4 ? 'medium' : 'hard',
    });
    expect(byBucket.groups.easy!.accuracy).toBeGreaterThan(0.7);
    expect(byBucket.groups.hard!.accuracy).toBeLessThan(0.1);
  });

  it('has learnt the sloppy teacher’s habit of forgetting carries', async () => {
    const gens = await policy.generateBatch([{ prompt: '37+48=', n: 64, temperature: 1, seed: 3 }]);
    const texts = gens[0]!.map((g) => g.text);
    const forgot = texts.filter((t) => t === forgetfulAnswer('37+48=')).length;
    const right = texts.filter((t) => t === '85').length;
    expect(forgetfulAnswer('37+48=')).toBe('75');
    expect(forgot).toBeGreaterThan(right);
  });
});

describe('warm-start recipe', () => {
  it('streams a seeded mixture that never yields an excluded prompt', () => {
    const recipe = WarmStartRecipeSchema.parse({ mixture: { add1: 1, sub1: 1 }, forgetRate: 1 });
    const a = warmStartStream(recipe, new Set(['1+1=']));
    const b = warmStartStream(recipe, new Set(['1+1=']));
    const xs = Array.from({ length: 300 }, a);
    expect(Array.from({ length: 300 }, b)).toEqual(xs);
    expect(xs.some((x) => x.prompt === '1+1=')).toBe(false);
    expect(xs.every((x) => /^\d[+-]\d=$/.test(x.prompt))).toBe(true);
    // forgetRate 1: every answer with a carry or borrow is the forgetful one.
    for (const x of xs) expect(x.completion).toBe(forgetfulAnswer(x.prompt));
  });

  it('supervised training lowers the cross-entropy on a fixed batch', async () => {
    const fresh = policy.clone();
    const trainer = new SupervisedTrainer(fresh, { lr: 1e-2 });
    const batch = [
      { prompt: '3+4=', completion: '7' },
      { prompt: '12-5=', completion: '7' },
      { prompt: '6*7=', completion: '42' },
    ];
    const first = trainer.step(batch).loss;
    let last = first;
    for (let i = 0; i < 10; i++) last = trainer.step(batch).loss;
    expect(last).toBeLessThan(first / 2);
    trainer.dispose();
    fresh.dispose();
  });
});
