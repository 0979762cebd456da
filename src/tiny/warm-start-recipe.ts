import { z } from 'zod';
import { Rng } from '../core/rng.ts';
import { arithmeticDomain, drawProblem, forgetfulAnswer } from '../explorer/tasks/arithmetic.ts';
import type { TinyPolicyConfigInput } from './config.ts';
import { TinyPolicy } from './policy.ts';
import { type SupervisedExample, SupervisedTrainer } from './supervised-trainer.ts';

/**
 * How the shipped warm start (datasets/arithmetic/warm-start) is made: supervised training of a
 * fresh tiny policy on a seeded stream of arithmetic problems, mostly easy with some medium and
 * a pinch of hard ones, so RL starts with easy tasks solved, medium ones half-solved and hard ones
 * mostly not. Held-out prompts are never trained on.
 */
export const WarmStartRecipeSchema = z.object({
  seed: z.number().int().default(7),
  policy: z.custom<TinyPolicyConfigInput>().default({ hidden: 128, layers: 1, initSeed: 0 }),
  steps: z.number().int().positive().default(3000),
  batchSize: z.number().int().positive().default(128),
  lr: z.number().positive().default(5e-3),
  maxGradNorm: z.number().min(0).default(1),
  /**
   * Share of training examples with a carry or borrow that are labelled with the answer of a
   * pupil who forgets carries (forgetfulAnswer) instead of the true one. This gives the warm
   * start a systematic, general mistake, like a policy distilled from a sloppy teacher; RL with
   * an exact-match reward can unlearn it, and that improvement carries over to unseen problems.
   */
  forgetRate: z.number().min(0).max(1).default(0.8),
  /** Relative weight of each arithmetic domain in the training stream. */
  mixture: z.record(z.string(), z.number().nonnegative()).default({
    add1: 3,
    sub1: 3,
    mul1: 2,
    add21: 3,
    sub21: 3,
    add2: 1.5,
    sub2: 1.5,
    addsub111: 1,
    mul21: 0.3,
    add3: 0.3,
    sub3: 0.3,
    addsub222: 0.2,
  }),
});
export type WarmStartRecipe = z.infer<typeof WarmStartRecipeSchema>;

/**
 * A seeded endless stream of (prompt, completion) pairs drawn from the recipe's mixture, skipping
 * excluded prompts; a `forgetRate` share of the ones with carries get the carry-forgetting answer.
 */
export function warmStartStream(
  recipe: WarmStartRecipe,
  exclude: ReadonlySet<string>,
): () => SupervisedExample {
  const names = Object.keys(recipe.mixture).filter((n) => recipe.mixture[n]! > 0);
  const domains = names.map((n, i) => arithmeticDomain(n, `warmStart.mixture.${names[i]}`));
  const weights = names.map((n) => recipe.mixture[n]!);
  const total = weights.reduce((a, b) => a + b, 0);
  const rng = new Rng(`warm-start:${recipe.seed}`);
  return () => {
    for (;;) {
      let u = rng.float() * total;
      let k = 0;
      while (k < weights.length - 1 && u >= weights[k]!) {
        u -= weights[k]!;
        k++;
      }
      const p = drawProblem(domains[k]!, rng);
      if (p === undefined || exclude.has(p.prompt)) continue;
      const sloppy = forgetfulAnswer(p.prompt);
      const forget = sloppy !== p.answer && rng.float() < recipe.forgetRate;
      return { prompt: p.prompt, completion: forget ? sloppy : p.answer };
    }
  };
}

export interface WarmStartProgress {
  step: number;
  loss: number;
  gradNorm: number;
}

/** Train a warm-start policy by the recipe (deterministic for a fixed recipe and tf backend). */
export async function trainWarmStart(
  recipeInput: z.input<typeof WarmStartRecipeSchema>,
  exclude: ReadonlySet<string>,
  onStep?: (p: WarmStartProgress, policy: TinyPolicy) => void | Promise<void>,
): Promise<TinyPolicy> {
  const recipe = WarmStartRecipeSchema.parse(recipeInput);
  const policy = await TinyPolicy.create(recipe.policy);
  const trainer = new SupervisedTrainer(policy, { lr: recipe.lr, maxGradNorm: recipe.maxGradNorm });
  const next = warmStartStream(recipe, exclude);
  try {
    for (let step = 1; step <= recipe.steps; step++) {
      const batch = Array.from({ length: recipe.batchSize }, next);
      const r = trainer.step(batch);
      await onStep?.({ step, loss: r.loss, gradNorm: r.gradNorm }, policy);
    }
  } finally {
    trainer.dispose();
  }
  return policy;
}
