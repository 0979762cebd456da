import type { MathJson } from './evaluate.ts';

/**
 * Exact values of constant answers: integers and fractions of any size as BigInt rationals, so
 * `2^{53}+1` is not `2^{53}` and `100!+1` is not `100!` (floats cannot tell them apart). Only the
 * heads whose value is rational are handled (sums, products, quotients, integer powers,
 * factorials, binomials, square roots of squares…); anything else (π, √2, a variable) has no exact
 * value here and is compared as a float.
 *
 * Every operation is priced before it runs: a result larger than `MAX_BITS` (a tower of powers,
 * `(10^9)!`, `\binom{10^{12}}{5\cdot10^{11}}`) throws `TooCostly` instead of computing for hours.
 */

export interface Rational {
  n: bigint;
  d: bigint;
}

/** About 9,900 decimal digits: 1000! and 10^{5000} are exact; anything larger is refused. */
export const MAX_BITS = 32_768;

/** An exact value that would cost more than the bound to compute. */
export class TooCostly extends Error {}

const ONE = 1n;
const ZERO = 0n;

function gcd(a: bigint, b: bigint): bigint {
  let x = a < ZERO ? -a : a;
  let y = b < ZERO ? -b : b;
  while (y !== ZERO) [x, y] = [y, x % y];
  return x;
}

/** Bit length of |x|. */
function bits(x: bigint): number {
  const h = (x < ZERO ? -x : x).toString(16);
  return (h.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(h[0]!, 16)));
}

/** log2 |x| (x ≠ 0), precise enough to price a power. */
function log2(x: bigint): number {
  const b = bits(x);
  return b < 1000 ? Math.log2(Math.abs(Number(x))) : b;
}

export function rational(n: bigint, d: bigint = ONE): Rational {
  if (d === ZERO) throw new RangeError('division by zero');
  if (d < ZERO) [n, d] = [-n, -d];
  const g = gcd(n, d);
  const r = g > ONE ? { n: n / g, d: d / g } : { n, d };
  if (bits(r.n) > 4 * MAX_BITS || bits(r.d) > 4 * MAX_BITS)
    throw new TooCostly(`an intermediate value has over ${4 * MAX_BITS} bits`);
  return r;
}

const add = (a: Rational, b: Rational) => rational(a.n * b.d + b.n * a.d, a.d * b.d);
export const mul = (a: Rational, b: Rational) => rational(a.n * b.n, a.d * b.d);
const neg = (a: Rational): Rational => ({ n: -a.n, d: a.d });
const isInt = (a: Rational) => a.d === ONE;

export const sub = (a: Rational, b: Rational) => add(a, neg(b));
export const abs = (a: Rational): Rational => (a.n < ZERO ? neg(a) : a);
/** −1, 0 or 1 as a < b, a = b, a > b. */
export function cmp(a: Rational, b: Rational): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

/**
 * A decimal literal as written (`-12.50`, `1.5e3`, `0.(3)` repeating) exactly, or null.
 * Exponents beyond the bound are refused (`1e99999999`).
 */
export function parseDecimal(text: string): Rational | null {
  const m = /^([-+]?)(\d*)(?:\.(\d*)(?:\((\d+)\))?)?(?:[eE]([-+]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '' && m[4] === undefined)) return null;
  const [, sign, int = '', frac = '', cycle, expText] = m;
  const exp = expText === undefined ? 0 : Number(expText);
  if (Math.abs(exp) * 3.33 > MAX_BITS)
    throw new TooCostly(`the exponent of ${text.slice(0, 40)} is too large`);
  let value = rational(BigInt(`${int}${frac}` || '0'), 10n ** BigInt(frac.length));
  if (cycle !== undefined) {
    const period = 10n ** BigInt(cycle.length) - ONE;
    value = add(value, rational(BigInt(cycle), period * 10n ** BigInt(frac.length)));
  }
  value = mul(value, exp >= 0 ? rational(10n ** BigInt(exp)) : rational(ONE, 10n ** BigInt(-exp)));
  return sign === '-' ? neg(value) : value;
}

/** Digits after the decimal point a literal states (`123456.7` → 1, `42` → 0, `1.5e-3` → 4), or null. */
export function statedDecimals(json: MathJson): number | null {
  if (Array.isArray(json) && json[0] === 'Negate' && json.length === 2) return statedDecimals(json[1]!);
  const text =
    typeof json === 'number'
      ? String(json)
      : json && typeof json === 'object' && 'num' in json
        ? json.num
        : null;
  if (text === null) return null;
  const m = /^[-+]?\d*(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m) return null;
  return Math.max(0, (m[1] ?? '').length - Number(m[2] ?? 0));
}

function power(base: Rational, e: Rational): Rational | null {
  if (!isInt(e)) return null;
  if (base.n === ZERO) return e.n < ZERO ? null : e.n === ZERO ? rational(ONE) : base;
  if (base.d === ONE && (base.n === ONE || base.n === -ONE)) return e.n % 2n === ZERO ? rational(ONE) : base;
  const size = Math.max(log2(base.n), log2(base.d));
  if (bits(e.n) > 40 || Number(e.n < ZERO ? -e.n : e.n) * size > MAX_BITS)
    throw new TooCostly('a power has more digits than the exact bound');
  const k = e.n < ZERO ? -e.n : e.n;
  const r = rational(base.n ** k, base.d ** k);
  return e.n < ZERO ? rational(r.d, r.n) : r;
}

/** log2(n!) by Stirling (an upper estimate is all the price check needs). */
const log2Factorial = (n: number) =>
  n < 2 ? 0 : n * Math.log2(n / Math.E) + 0.5 * Math.log2(2 * Math.PI * n) + 1;

function factorial(x: Rational): Rational | null {
  if (!isInt(x) || x.n < ZERO) return null;
  if (bits(x.n) > 40 || log2Factorial(Number(x.n)) > MAX_BITS)
    throw new TooCostly('a factorial has more digits than the exact bound');
  let r = ONE;
  for (let i = 2n; i <= x.n; i++) r *= i;
  return rational(r);
}

function binomial(nr: Rational, kr: Rational): Rational | null {
  if (!isInt(nr) || !isInt(kr) || nr.n < ZERO) return null;
  const n = nr.n;
  if (kr.n < ZERO || kr.n > n) return rational(ZERO);
  let k = kr.n;
  if (n - k < k) k = n - k; // the smaller side: C(n, k) = C(n, n − k)
  // C(n, k) ≥ (n/k)^k ≥ 2^k, and ≤ (e·n/k)^k: both sizes must fit the bound.
  const kn = Number(k);
  if (bits(k) > 40 || kn > MAX_BITS || (kn > 0 && kn * Math.log2((Math.E * Number(n)) / kn) > MAX_BITS))
    throw new TooCostly('a binomial coefficient has more digits than the exact bound');
  let r = ONE;
  for (let i = ONE; i <= k; i++) r = (r * (n - k + i)) / i;
  return rational(r);
}

function isqrt(x: bigint): bigint {
  if (x < 2n) return x;
  let r = BigInt(Math.floor(Math.sqrt(Number(x))));
  for (;;) {
    const next = (r + x / r) >> ONE;
    if (next >= r && r * r <= x && (r + ONE) * (r + ONE) > x) return r;
    r = next;
  }
}

function sqrt(x: Rational): Rational | null {
  if (x.n < ZERO) return null;
  const n = isqrt(x.n);
  const d = isqrt(x.d);
  return n * n === x.n && d * d === x.d ? rational(n, d) : null;
}

type Op = (args: Rational[]) => Rational | null;
const OPS: Record<string, Op> = {
  Add: (a) => a.reduce(add),
  Subtract: (a) => (a.length === 1 ? neg(a[0]!) : a.length === 2 ? sub(a[0]!, a[1]!) : null),
  Negate: (a) => (a.length === 1 ? neg(a[0]!) : null),
  Multiply: (a) => a.reduce(mul),
  InvisibleOperator: (a) => a.reduce(mul),
  Divide: (a) => (a.length === 2 && a[1]!.n !== ZERO ? mul(a[0]!, rational(a[1]!.d, a[1]!.n)) : null),
  Rational: (a) => (a.length === 2 && a[1]!.n !== ZERO ? mul(a[0]!, rational(a[1]!.d, a[1]!.n)) : null),
  Power: (a) => (a.length === 2 ? power(a[0]!, a[1]!) : null),
  Square: (a) => (a.length === 1 ? mul(a[0]!, a[0]!) : null),
  Sqrt: (a) => (a.length === 1 ? sqrt(a[0]!) : null),
  Factorial: (a) => (a.length === 1 ? factorial(a[0]!) : null),
  Binomial: (a) => (a.length === 2 ? binomial(a[0]!, a[1]!) : null),
  Abs: (a) => (a.length === 1 ? abs(a[0]!) : null),
};

/**
 * The exact value of a constant expression, or null when it has none here (an irrational, a
 * variable, an unknown head). Every argument is evaluated even when one has no exact value, so a
 * costly part anywhere is found (and refused with `TooCostly`) before any float evaluation runs.
 */
export function exactValue(json: MathJson): Rational | null {
  if (typeof json === 'number') return Number.isFinite(json) ? parseDecimal(String(json)) : null;
  if (typeof json === 'string') return null;
  if (Array.isArray(json)) {
    const head = json[0];
    if (head === 'Delimiter' || head === 'Sequence') return json.length === 2 ? exactValue(json[1]!) : null;
    const args = json.slice(1).map(exactValue);
    const op = typeof head === 'string' ? OPS[head] : undefined;
    if (op === undefined || args.length === 0 || args.some((a) => a === null)) return null;
    try {
      return op(args as Rational[]);
    } catch (err) {
      if (err instanceof RangeError) return null;
      throw err;
    }
  }
  if ('num' in json) return parseDecimal(json.num);
  if ('fn' in json) return exactValue(json.fn);
  return null;
}

/** `2\frac14` (a whole number written before a numeric fraction) is the mixed number 2 + 1/4. */
export function mixedNumbers(json: MathJson): MathJson {
  if (!Array.isArray(json)) return json;
  const out = json.map((j, i) => (i === 0 ? j : mixedNumbers(j))) as MathJson[];
  if (out[0] !== 'InvisibleOperator' || out.length !== 3) return out;
  const [, whole, frac] = out;
  const negative = Array.isArray(whole) && whole[0] === 'Negate' && whole.length === 2;
  const w = negative ? (whole as MathJson[])[1]! : whole!;
  const isWhole = (x: MathJson | undefined) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  const isFrac =
    Array.isArray(frac) &&
    (frac[0] === 'Divide' || frac[0] === 'Rational') &&
    frac.length === 3 &&
    isWhole(frac[1]) &&
    isWhole(frac[2]);
  if (!isWhole(w) || !isFrac) return out;
  const sum: MathJson = ['Add', w, frac];
  return negative ? ['Negate', sum] : sum;
}
