/**
 * Group-relative advantages of one set of rewards: (r − mean) / (std + ε), population std.
 * A NaN reward gets advantage 0 and does not enter the mean or std. RePO (samplers/repo.ts) uses it
 * for the off-policy rows of a prompt, apart from its fresh group.
 */
export function groupAdvantages(rewards: readonly number[], epsilon: number): number[] {
  const valid = rewards.filter((r) => !Number.isNaN(r));
  if (valid.length === 0) return rewards.map(() => 0);
  const mean = valid.reduce((a, b) => a + b, 0) / valid.length;
  const std = Math.sqrt(valid.reduce((a, b) => a + (b - mean) ** 2, 0) / valid.length);
  return rewards.map((r) => (Number.isNaN(r) ? 0 : (r - mean) / (std + epsilon)));
}
