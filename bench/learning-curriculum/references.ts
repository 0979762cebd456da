// What the bench knows about the pool before any run: the warm start's exact pass rates (the weak
// reference, and the "too easy / too hard" share) and those of a stronger model of the same
// family, the warm start after a short seeded SFT on the pool's answers (the strong reference).

import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import type { TinyPolicy } from '../../src/tiny/policy.ts';
import { SupervisedTrainer } from '../../src/tiny/supervised-trainer.ts';
import { loadWarmStart } from '../../src/tiny/warm-start.ts';
import { exactPassRates } from './exact-pass-rate.ts';

export interface StartReport {
  passRates: Float64Array;
  /** Share of tasks with an exact start pass rate below 0.05 or above 0.95. */
  extremeShare: number;
  /** Expected share of `repeat`-rollout groups whose rewards are all equal (no GRPO gradient) under random selection. */
  noGradientShare: number;
  byLevel: Record<string, number>;
}

export async function startReport(
  train: readonly Task[],
  repeat: number,
  load: () => Promise<TinyPolicy> = loadWarmStart,
): Promise<StartReport> {
  const policy = await load();
  try {
    const passRates = exactPassRates(policy, train);
    const rates = [...passRates];
    const by = new Map<string, number[]>();
    train.forEach((t, i) => {
      const d = String(t.meta.domain);
      by.set(d, [...(by.get(d) ?? []), rates[i]!]);
    });
    return {
      passRates,
      extremeShare: rates.filter((p) => p < 0.05 || p > 0.95).length / rates.length,
      noGradientShare: rates.reduce((a, p) => a + p ** repeat + (1 - p) ** repeat, 0) / rates.length,
      byLevel: Object.fromEntries([...by].map(([d, xs]) => [d, xs.reduce((a, b) => a + b, 0) / xs.length])),
    };
  } finally {
    policy.dispose();
  }
}

/** Exact pass rates of the warm start after `steps` SFT updates (batches of 64 pool tasks, seeded). */
export async function strongReference(
  train: readonly Task[],
  steps: number,
  load: () => Promise<TinyPolicy> = loadWarmStart,
): Promise<Float64Array> {
  const policy = await load();
  try {
    const sft = new SupervisedTrainer(policy, { lr: 0.003 });
    const rng = new Rng('curriculum-strong-reference');
    for (let s = 0; s < steps; s++) {
      const batch = Array.from({ length: 64 }, () => train[rng.int(train.length)]!);
      sft.step(batch.map((t) => ({ prompt: t.prompt!, completion: t.answer! })));
    }
    return exactPassRates(policy, train);
  } finally {
    policy.dispose();
  }
}

/**
 * What measuring the start pass rates with `k` rollouts per task would give: for each task the share
 * of k draws (seeded, at the exact pass rate) that pass. This is the learner's own column as a
 * method could have it after paying k × tasks rollouts (bench/protocol/information.ts).
 */
export function measuredPassRates(exact: Float64Array, k: number, seed: number): Float64Array {
  const rng = new Rng(`measured-pass-rates:${seed}:${k}`);
  return exact.map((p) => {
    let hits = 0;
    for (let i = 0; i < k; i++) if (rng.float() < p) hits++;
    return hits / k;
  });
}
