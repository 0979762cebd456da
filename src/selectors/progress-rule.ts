/**
 * The allocation rule of the `progress` selector (docs/selection-zoo.md, "`progress`"), as pure
 * functions so that a test can check it on a hand-computed state.
 *
 * Per category c (a level or a domain) the selector keeps two running means of the mean reward of
 * the category's groups, on the category's own clock (one tick per group fed back):
 *   fast_c ← fast_c + (r − fast_c) / min(n_c, H_fast),  slow_c ← slow_c + (r − slow_c) / min(n_c, H_slow),
 * so both are the plain mean while n_c ≤ H_fast (no progress is claimed before there is evidence)
 * and exponential moving averages after. Learning progress LP_c = |fast_c − slow_c| is the change
 * of the category's pass rate over its recent groups, in either direction (a level being learned
 * or being forgotten), as in the bidirectional learning progress of learning-progress curricula.
 */

/** One category's running means after one more group with mean reward `reward`. */
export interface ProgressTrack {
  /** Groups seen in the category. */
  n: number;
  fast: number;
  slow: number;
}

/** The track after one more group (pure; the selector stores tracks as parallel arrays). */
export function stepTrack(
  t: ProgressTrack,
  reward: number,
  fastHorizon: number,
  slowHorizon: number,
): ProgressTrack {
  const n = t.n + 1;
  return {
    n,
    fast: t.fast + (reward - t.fast) / Math.min(n, fastHorizon),
    slow: t.slow + (reward - t.slow) / Math.min(n, slowHorizon),
  };
}

/** Absolute learning progress of each category: |fast − slow| (0 for an unvisited category). */
export function learningProgress(fast: ArrayLike<number>, slow: ArrayLike<number>): Float64Array {
  return Float64Array.from({ length: fast.length }, (_, c) => Math.abs(fast[c]! - slow[c]!));
}

/**
 * Each category's share of a batch:
 *   share_c = φ · size_c / N + (1 − φ) · LP_c / Σ_j LP_j,
 * where the first part is exactly what uniform random selection gives the category (φ = `floor`), so
 * the selector never visits a level less than φ times as often as random does (a nearly solved level
 * keeps being revisited, and a level that starts to be forgotten shows up in its LP), and with no
 * measured progress anywhere (Σ LP = 0) the shares are random's. Empty categories get 0.
 */
export function progressShares(
  progress: ArrayLike<number>,
  sizes: ArrayLike<number>,
  floor: number,
): Float64Array {
  const c = sizes.length;
  let total = 0;
  let lp = 0;
  for (let j = 0; j < c; j++) {
    total += sizes[j]!;
    if (sizes[j]! > 0) lp += Math.max(0, progress[j]!);
  }
  const out = new Float64Array(c);
  if (total === 0) return out;
  for (let j = 0; j < c; j++) {
    if (sizes[j]! === 0) continue;
    const random = sizes[j]! / total;
    out[j] = lp > 0 ? floor * random + (1 - floor) * (Math.max(0, progress[j]!) / lp) : random;
  }
  return out;
}

/**
 * Learnability of a task at predicted pass rate p: 4p(1 − p), 1 at p = 0.5 and 0 at 0 and 1 (the
 * chance-weighted size of a GRPO gradient); a non-finite prediction scores 0.
 */
export function learnability(p: number): number {
  return Number.isFinite(p) ? 4 * p * (1 - p) : 0;
}
