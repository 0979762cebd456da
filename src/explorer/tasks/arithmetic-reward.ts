/**
 * Exact-match reward for arithmetic tasks: 1 when the response, with surrounding whitespace
 * removed, is the reference answer, else 0. A missing answer scores NaN so invalid-reward
 * filters can see it.
 */
export function arithmeticReward(response: string, answer: string | undefined): number {
  if (answer === undefined) return Number.NaN;
  return response.trim() === answer.trim() ? 1 : 0;
}
