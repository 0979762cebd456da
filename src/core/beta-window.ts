// Bounds on how likely a Beta draw is to land in a window [x1, x2], and a draw conditioned on
// landing there: what an exact Thompson step needs to decide, for many Beta posteriors at once,
// which draws can come near a target without drawing each (src/selectors/bots-thompson.ts).
import { betaCdf, logBeta } from './beta-dist.ts';

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** (a − 1)·ln x + (b − 1)·ln(1 − x), with 0·ln 0 taken as 0 (Beta(1, b) at 0 is finite). */
function logKernel(x: number, a: number, b: number): number {
  return (a === 1 ? 0 : (a - 1) * Math.log(x)) + (b === 1 ? 0 : (b - 1) * Math.log1p(-x));
}

/**
 * An upper bound of the Beta(μ·s, (1 − μ)·s) density over x in [x1, x2] ⊆ [0, 1] and μ in
 * [μ1, μ2] ⊂ (0, 1) (+Infinity where it is unbounded). The log density is (a − 1)·ln x +
 * (b − 1)·ln(1 − x) − ln B(a, b) with a = μs, b = s − a. The first part is linear in μ, so its
 * largest value is at μ1 or μ2, each at its mode clamped into the window (or at an end of the
 * window where the kernel is not concave: a < 1 or b < 1); ln B(a, s − a) is convex and symmetric
 * in a, so it is least at a = s/2 clamped into [μ1·s, μ2·s]. The sum of the two maxima bounds the
 * joint one.
 */
export function betaDensityBound(s: number, mu1: number, mu2: number, x1: number, x2: number): number {
  let kernel = Number.NEGATIVE_INFINITY;
  for (const a of [mu1 * s, mu2 * s]) {
    const b = s - a;
    if (!(a > 0 && b > 0)) return Number.POSITIVE_INFINITY;
    const k =
      a >= 1 && b >= 1
        ? logKernel(clamp(s > 2 ? (a - 1) / (s - 2) : 0.5, x1, x2), a, b)
        : Math.max(logKernel(x1, a, b), logKernel(x2, a, b));
    if (Number.isNaN(k)) return Number.POSITIVE_INFINITY;
    kernel = Math.max(kernel, k);
  }
  const aMid = clamp(s / 2, mu1 * s, mu2 * s);
  // A hair of slack: the bound must never fall below a density computed with rounding.
  return Math.exp(kernel - logBeta(aMid, s - aMid)) * (1 + 1e-9);
}

/**
 * An upper bound of P(X ≥ μ + t) (and of P(X ≤ μ − t)) for X ~ Beta with α + β = s and mean μ,
 * t ≥ 0: a Beta distribution is sub-Gaussian with variance proxy 1/(4(α + β + 1)) (Marchal and
 * Arbel, 2017), so the tail is at most exp(−2(s + 1)·t²).
 */
export function betaTailBound(s: number, t: number): number {
  return t > 0 ? Math.exp(-2 * (s + 1) * t * t) : 1;
}

/** P(x1 ≤ X ≤ x2) for X ~ Beta(a, b), from the side of the mean where the CDF is accurate. */
export function betaMass(a: number, b: number, x1: number, x2: number): number {
  if (x1 > a / (a + b)) return Math.max(0, betaCdf(1 - x1, b, a) - betaCdf(1 - x2, b, a));
  return Math.max(0, betaCdf(x2, a, b) - betaCdf(x1, a, b));
}

/**
 * A Beta(a, b) draw conditioned on [x1, x2], from u uniform in [0, 1): the point splitting the
 * window's mass u : 1 − u, by bisection (upper tail through the survival function, where the CDF
 * itself would round to 1).
 */
export function betaInWindow(a: number, b: number, x1: number, x2: number, u: number): number {
  const upper = x1 > a / (a + b);
  // Mass of [x1, x] (upper: of [x, x2], counted from x2) as a function of x.
  const f = upper ? (x: number) => betaCdf(1 - x, b, a) : (x: number) => betaCdf(x, a, b);
  const f1 = f(x1);
  const f2 = f(x2);
  const goal = upper ? f1 - u * (f1 - f2) : f1 + u * (f2 - f1);
  let lo = x1;
  let hi = x2;
  for (let i = 0; i < 64 && hi - lo > 1e-16; i++) {
    const mid = 0.5 * (lo + hi);
    const below = upper ? f(mid) > goal : f(mid) < goal;
    if (below) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}
