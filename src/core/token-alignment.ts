import { DataError } from './errors.ts';

/**
 * One alignment for every per-token array of an experience: `logprobs`, `actionMask` and
 * `advantages` cover the response part, `tokens.slice(promptLength)`, one entry per response
 * token. Rows written by older versions (or other tools) may give a mask over all tokens; the
 * functions here read both layouts and always return the response layout.
 */

/** Values of a per-token array over the response tokens; `undefined` when it fits neither layout. */
export function toResponseLayout(
  values: readonly number[],
  totalTokens: number,
  promptLength: number,
): number[] | undefined {
  const responseLength = totalTokens - promptLength;
  if (values.length === responseLength) return values.slice();
  if (values.length === totalTokens && totalTokens > 0) return values.slice(promptLength);
  return undefined;
}

/** Why a per-token array does not fit (for quarantine reasons and errors). */
export function layoutProblem(
  what: string,
  length: number,
  totalTokens: number,
  promptLength: number,
): string {
  return `${what} has ${length} entries; expected ${totalTokens - promptLength} (one per response token)`;
}

/** Same as toResponseLayout, but throws a DataError naming the experience when it does not fit. */
export function responseLayoutOrThrow(
  values: readonly number[],
  totalTokens: number,
  promptLength: number,
  what: string,
): number[] {
  const out = toResponseLayout(values, totalTokens, promptLength);
  if (out === undefined)
    throw new DataError({ message: layoutProblem(what, values.length, totalTokens, promptLength) });
  return out;
}

/** The token arrays of an experience (experience.ts imports this module, so it is not named here). */
export interface TokenArrays {
  tokens: readonly number[];
  promptLength: number;
  logprobs: readonly number[];
  actionMask: readonly number[];
}

/**
 * The experience with `logprobs`, `actionMask` and `advantages` in the response layout (empty
 * arrays stay empty: no logprobs known, or every response token trained on). Returns a string
 * naming the first array that fits neither layout.
 */
export function alignTokenArrays<
  E extends TokenArrays & {
    advantages?: number[] | undefined;
  },
>(e: E): E | string {
  const total = e.tokens.length;
  const pl = Math.min(e.promptLength, total);
  const fix = (values: readonly number[], what: string): number[] | string =>
    values.length === 0
      ? []
      : (toResponseLayout(values, total, pl) ?? layoutProblem(what, values.length, total, pl));
  const logprobs = fix(e.logprobs, 'logprobs');
  if (typeof logprobs === 'string') return logprobs;
  const actionMask = fix(e.actionMask, 'actionMask');
  if (typeof actionMask === 'string') return actionMask;
  if (e.advantages === undefined) return { ...e, logprobs, actionMask };
  const advantages = fix(e.advantages, 'advantages');
  if (typeof advantages === 'string') return advantages;
  return { ...e, logprobs, actionMask, advantages };
}

/** The response-layout action mask: the given one, or all ones when none was given. */
export function responseActionMask(
  e: Pick<TokenArrays, 'tokens' | 'promptLength' | 'actionMask'>,
): number[] | string {
  const total = e.tokens.length;
  const pl = Math.min(e.promptLength, total);
  if (e.actionMask.length === 0) return new Array<number>(total - pl).fill(1);
  return (
    toResponseLayout(e.actionMask, total, pl) ?? layoutProblem('actionMask', e.actionMask.length, total, pl)
  );
}
