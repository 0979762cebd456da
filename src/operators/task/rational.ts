/**
 * Exact rational numbers over BigInt, so re-evaluated calculator annotations compare exactly
 * (0.1 + 0.2 is 3/10, not 0.30000000000000004) and "is this an integer / a finite decimal?"
 * has a true answer.
 */
export interface Rational {
  /** Numerator; carries the sign. */
  readonly n: bigint;
  /** Denominator, always > 0; gcd(n, d) = 1. */
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rational(n: bigint, d = 1n): Rational {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** Parse an unsigned or signed decimal literal: `12`, `-3.5`, `.25`, `1,234.5` (commas ignored). */
export function parseDecimal(text: string): Rational | null {
  const t = text.replace(/,/g, '');
  const m = /^([-+]?)(\d*)(?:\.(\d+))?$/.exec(t);
  if (!m || (m[2] === '' && m[3] === undefined)) return null;
  const frac = m[3] ?? '';
  const digits = BigInt(`${m[2] || '0'}${frac}`);
  const r = rational(digits, 10n ** BigInt(frac.length));
  return m[1] === '-' ? neg(r) : r;
}

export const ZERO = rational(0n);

export function neg(a: Rational): Rational {
  return { n: -a.n, d: a.d };
}
export function add(a: Rational, b: Rational): Rational {
  return rational(a.n * b.d + b.n * a.d, a.d * b.d);
}
export function sub(a: Rational, b: Rational): Rational {
  return rational(a.n * b.d - b.n * a.d, a.d * b.d);
}
export function mul(a: Rational, b: Rational): Rational {
  return rational(a.n * b.n, a.d * b.d);
}
export function div(a: Rational, b: Rational): Rational {
  if (b.n === 0n) throw new RangeError('division by zero');
  return rational(a.n * b.d, a.d * b.n);
}
export function equals(a: Rational, b: Rational): boolean {
  return a.n === b.n && a.d === b.d;
}
export function compare(a: Rational, b: Rational): number {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
}
export function sign(a: Rational): number {
  return a.n < 0n ? -1 : a.n > 0n ? 1 : 0;
}
export function isInteger(a: Rational): boolean {
  return a.d === 1n;
}
export function toNumber(a: Rational): number {
  return Number(a.n) / Number(a.d);
}

/** Digits after the point needed to write the value exactly, or null when it does not terminate (1/3). */
export function decimalPlaces(a: Rational): number | null {
  let d = a.d;
  let twos = 0;
  let fives = 0;
  while (d % 2n === 0n) {
    d /= 2n;
    twos++;
  }
  while (d % 5n === 0n) {
    d /= 5n;
    fives++;
  }
  return d === 1n ? Math.max(twos, fives) : null;
}

/** A stable string key for maps: "n/d". */
export function key(a: Rational): string {
  return a.d === 1n ? a.n.toString() : `${a.n}/${a.d}`;
}

/**
 * Exact decimal text with at least `minPlaces` digits after the point (zero-padded);
 * null when the value does not terminate. `commas` groups the integer part by thousands.
 */
export function toDecimalString(a: Rational, minPlaces = 0, commas = false): string | null {
  const need = decimalPlaces(a);
  if (need === null) return null;
  const places = Math.max(need, minPlaces);
  const scaled = ((a.n < 0n ? -a.n : a.n) * 10n ** BigInt(places)) / a.d;
  let digits = scaled.toString().padStart(places + 1, '0');
  let int = digits.slice(0, digits.length - places);
  const frac = digits.slice(digits.length - places);
  if (commas) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  digits = places > 0 ? `${int}.${frac}` : int;
  return a.n < 0n ? `-${digits}` : digits;
}
