import type { Rng } from '../core/rng.ts';

/**
 * Draw one token from a row of logits with a seeded Rng. Returns the token and its
 * log-probability under the distribution actually sampled from: softmax(logits / T) for T > 0;
 * for T = 0 (greedy, argmax with the lowest id winning ties) it is the log-probability under
 * softmax(logits), since the greedy "distribution" would give a useless 0.
 */
export function sampleToken(
  logits: Float32Array,
  offset: number,
  size: number,
  temperature: number,
  rng: Rng,
): { token: number; logprob: number } {
  const t = temperature > 0 ? temperature : 1;
  let max = Number.NEGATIVE_INFINITY;
  let arg = 0;
  for (let i = 0; i < size; i++) {
    const v = logits[offset + i]!;
    if (v > max) {
      max = v;
      arg = i;
    }
  }
  let sum = 0;
  for (let i = 0; i < size; i++) sum += Math.exp((logits[offset + i]! - max) / t);
  const logZ = Math.log(sum);
  if (temperature <= 0) return { token: arg, logprob: -logZ };
  const u = rng.float() * sum;
  let acc = 0;
  let token = arg;
  for (let i = 0; i < size; i++) {
    const w = Math.exp((logits[offset + i]! - max) / t);
    if (w === 0) continue;
    acc += w;
    token = i;
    if (u < acc) break;
  }
  return { token, logprob: (logits[offset + token]! - max) / t - logZ };
}
