// The Beta distribution's CDF (the regularized incomplete beta function) and the quantile of a
// Beta draw's distance to a target rate, for selectors that stand in for many identical Thompson
// draws with their order statistics (src/selectors/zoo/mopps.ts).

/** Lanczos coefficients (g = 7, 9 terms): ln Γ to ~15 significant digits for x > 0. */
const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
  12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of I_x(a, b) (modified Lentz), accurate where x < (a + 1) / (a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    // Even step.
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    // Odd step.
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** P(X ≤ x) for X ~ Beta(a, b) (a, b > 0): the regularized incomplete beta function I_x(a, b). */
export function betaCdf(x: number, a: number, b: number): number {
  if (!(x > 0)) return 0;
  if (x >= 1) return 1;
  if (a === 1 && b === 1) return x;
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b));
  // The fraction converges fast on one side of the mean; use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a).
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/**
 * The distribution of a Beta(a, b) draw's distance |X − target| to a rate in (0, 1): its CDF
 * G(d) = F(target + d) − F(target − d), and the inverse of G.
 */
export class BetaDistance {
  private readonly a: number;
  private readonly b: number;
  private readonly target: number;
  /** The largest distance a draw can have. */
  readonly max: number;

  constructor(a: number, b: number, target: number) {
    this.a = a;
    this.b = b;
    this.target = target;
    this.max = Math.max(target, 1 - target);
  }

  cdf(d: number): number {
    if (!(d > 0)) return 0;
    if (d >= this.max) return 1;
    const { a, b, target } = this;
    return Math.min(1, Math.max(0, betaCdf(target + d, a, b) - betaCdf(target - d, a, b)));
  }

  /**
   * The distance d with G(d) = u (0 ≤ u < 1). Uniform prior: closed form. Otherwise bisection to
   * the resolution of a double (G is continuous and non-decreasing).
   */
  quantile(u: number): number {
    if (!(u > 0)) return 0;
    if (u >= 1) return this.max;
    if (this.a === 1 && this.b === 1) {
      const near = Math.min(this.target, 1 - this.target);
      return u <= 2 * near ? u / 2 : u - near;
    }
    let lo = 0;
    let hi = this.max;
    for (let i = 0; i < 64 && hi - lo > 1e-16; i++) {
      const mid = 0.5 * (lo + hi);
      if (this.cdf(mid) < u) lo = mid;
      else hi = mid;
    }
    return 0.5 * (lo + hi);
  }
}

/** ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** The Beta(a, b) density at x in [0, 1]. */
export function betaDensity(x: number, a: number, b: number): number {
  if (x < 0 || x > 1) return 0;
  // 0 · ln 0 is taken as 0: Beta(1, b) at 0 and Beta(a, 1) at 1 are finite.
  const left = a === 1 ? 0 : (a - 1) * Math.log(x);
  const right = b === 1 ? 0 : (b - 1) * Math.log1p(-x);
  return Math.exp(left + right - logBeta(a, b));
}

/** The largest value of the Beta(a, b) density on [0, 1]: at the mode; +Infinity when a < 1 or b < 1. */
export function betaPeak(a: number, b: number): number {
  if (a < 1 || b < 1) return Number.POSITIVE_INFINITY;
  if (a === 1 && b === 1) return 1;
  return betaDensity((a - 1) / (a + b - 2), a, b);
}
