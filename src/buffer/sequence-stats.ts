/**
 * Per-experience sequence statistics the replay methods select and correct with, computed from the
 * explorer's per-token behaviour log-probabilities (`logprobs`, one per response token; the tiny
 * policy and OpenAI-compatible servers both return them) and the action mask (1 where the policy
 * produced the token). Environment tokens of later turns (mask 0) are left out.
 */

/** The response part of a per-token array: stored rows hold it already; a write may still hold all tokens. */
function responsePart(a: ArrayLike<number>, tokens: number, promptLength: number): ArrayLike<number> {
  if (promptLength > 0 && a.length === tokens && tokens > promptLength)
    return Array.prototype.slice.call(a, promptLength) as number[];
  return a;
}

/** Action-token behaviour log-probs of a row (empty when it has none). */
export function actionLogprobs(
  logprobs: ArrayLike<number>,
  actionMask: ArrayLike<number>,
  tokens = logprobs.length,
  promptLength = 0,
): number[] {
  const lp = responsePart(logprobs, tokens, promptLength);
  const mask = actionMask.length === 0 ? null : responsePart(actionMask, tokens, promptLength);
  const out: number[] = [];
  for (let t = 0; t < lp.length; t++) if (mask === null || mask[t] === 1) out.push(lp[t]!);
  return out;
}

/**
 * log π_behaviour(response) = Σ_t log π_b(y_t) over the action tokens: the denominator of a
 * sequence-level importance ratio. NaN when the row carries no log-probs.
 */
export function behaviourLogprob(action: readonly number[]): number {
  if (action.length === 0) return Number.NaN;
  let s = 0;
  for (const x of action) s += x;
  return s;
}

/**
 * Sequence entropy: the mean over action tokens of −log π_b(y_t). Since E_{y~π}[−log π(y)] is the
 * token entropy, this is the sampled-token (Monte Carlo) estimate of the mean per-token entropy of
 * the behaviour policy along the trajectory. It needs no extra forward pass and no vocabulary-wide
 * distribution, which neither the buffer nor an OpenAI-compatible server has. NaN without log-probs.
 */
export function sequenceEntropy(action: readonly number[]): number {
  if (action.length === 0) return Number.NaN;
  return -behaviourLogprob(action) / action.length;
}
