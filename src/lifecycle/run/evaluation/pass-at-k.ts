/**
 * Scores of an evaluation set from n ≥ k samples per task.
 *
 * pass@k uses the unbiased estimator of Chen et al. (2021): with n samples of a task of which c are
 * correct, the chance that k samples drawn without replacement include a correct one is
 * 1 − C(n−c, k) / C(n, k). It is computed as a product, 1 − ∏_{i=n−c+1..n} (1 − k/i), so large n
 * never overflows. With n = k it is 1 when any sample is correct, else 0.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k))
    throw new RangeError(`pass@k needs integers (n=${n}, c=${c}, k=${k})`);
  if (n < 1 || k < 1 || k > n || c < 0 || c > n)
    throw new RangeError(`pass@k needs 1 ≤ k ≤ n and 0 ≤ c ≤ n (n=${n}, c=${c}, k=${k})`);
  // Fewer wrong samples than k: every draw of k holds a correct one.
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

/** One task's samples: the reward of each of its n samples (a failed rollout counts as reward 0). */
export type TaskRewards = readonly number[];

export interface SetScores {
  tasks: number;
  /** Mean reward over every sample of every task (the set's accuracy with 0/1 rewards). */
  meanAtK: number;
  /** pass@k averaged over tasks, a sample counting as correct when its reward ≥ `correctAt`. */
  passAtK: number;
}

/**
 * mean@k and pass@k of a set from `n` samples per task (n ≥ k, default k): pass@k by the unbiased
 * estimator over all n, mean@k as the mean of all n rewards (its unbiased estimate). Every task must
 * carry exactly `n` rewards (the evaluator pads a failed group with zeros, so a failure counts as
 * n wrong samples rather than vanishing).
 */
export function scoreSet(perTask: readonly TaskRewards[], k: number, correctAt = 1, n = k): SetScores {
  if (perTask.length === 0) return { tasks: 0, meanAtK: Number.NaN, passAtK: Number.NaN };
  let rewardSum = 0;
  let passSum = 0;
  for (const rewards of perTask) {
    if (rewards.length !== n)
      throw new RangeError(`a task has ${rewards.length} sample(s) where n = ${n} were expected`);
    let correct = 0;
    for (const r of rewards) {
      const v = Number.isFinite(r) ? r : 0;
      rewardSum += v;
      if (v >= correctAt) correct++;
    }
    passSum += passAtK(n, correct, k);
  }
  return {
    tasks: perTask.length,
    meanAtK: rewardSum / (perTask.length * n),
    passAtK: passSum / perTask.length,
  };
}
