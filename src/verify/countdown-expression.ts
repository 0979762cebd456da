/**
 * A small, safe evaluator for Countdown answers: numbers, + − × ÷ (also * and /) and parentheses,
 * parsed by recursive descent and computed exactly with rationals (BigInt numerator/denominator),
 * so `6 / (1 − 3/4)` is exactly 24 and no tolerance is needed. Nothing is ever passed to `eval`.
 * Unary signs are not accepted (Countdown combines the given numbers with binary operations).
 */

/** An exact rational n/d, d > 0, in lowest terms. */
export interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

export type ParsedExpression =
  | { ok: true; value: Rational; numbers: Rational[]; text: string }
  | { ok: false; error: string };

export interface ExpressionLimits {
  /** Longest expression accepted (characters). */
  maxChars: number;
  /** Deepest parenthesis nesting accepted. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: ExpressionLimits = { maxChars: 512, maxDepth: 32 };

const abs = (x: bigint) => (x < 0n ? -x : x);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rational(n: bigint, d = 1n): Rational {
  if (d === 0n) throw new RangeError('zero denominator');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/** A decimal literal ("25", "2.5") as an exact rational. */
export function parseDecimal(text: string): Rational | undefined {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const frac = m[2] ?? '';
  return rational(BigInt(m[1]! + frac), 10n ** BigInt(frac.length));
}

export const equal = (a: Rational, b: Rational) => a.n === b.n && a.d === b.d;
export const show = (q: Rational) => (q.d === 1n ? String(q.n) : `${q.n}/${q.d}`);

type Token = { kind: 'num'; value: Rational; at: number } | { kind: 'op'; op: string; at: number };

function tokenize(text: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^\d+(?:\.\d+)?/.exec(text.slice(i, i + 64));
    if (num) {
      out.push({ kind: 'num', value: parseDecimal(num[0])!, at: i });
      i += num[0].length;
      continue;
    }
    const op = c === '×' ? '*' : c === '÷' ? '/' : c === '−' ? '-' : c;
    if ('+-*/()'.includes(op)) {
      out.push({ kind: 'op', op, at: i });
      i++;
      continue;
    }
    return `unexpected '${c}' at ${i}`;
  }
  return out;
}

/** Parse and evaluate `text`; errors say what and where (division by zero included). */
export function evaluateExpression(
  text: string,
  limits: ExpressionLimits = DEFAULT_LIMITS,
): ParsedExpression {
  if (text.length > limits.maxChars) return { ok: false, error: `longer than ${limits.maxChars} characters` };
  const tokens = tokenize(text);
  if (typeof tokens === 'string') return { ok: false, error: tokens };
  if (tokens.length === 0) return { ok: false, error: 'empty expression' };
  const numbers: Rational[] = [];
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const fail = (msg: string): never => {
    throw new ExpressionError(msg);
  };
  const where = (t: Token | undefined) =>
    t ? `'${t.kind === 'op' ? t.op : show(t.value)}' at ${t.at}` : 'the end';

  const factor = (depth: number): Rational => {
    const t = peek();
    if (t?.kind === 'num') {
      pos++;
      numbers.push(t.value);
      return t.value;
    }
    if (t?.kind === 'op' && t.op === '(') {
      if (depth >= limits.maxDepth) fail(`parentheses nested deeper than ${limits.maxDepth}`);
      pos++;
      const v = expr(depth + 1);
      const close = peek();
      if (close?.kind !== 'op' || close.op !== ')') fail(`expected ')' but found ${where(close)}`);
      pos++;
      return v;
    }
    return fail(`expected a number or '(' but found ${where(t)}`);
  };
  const term = (depth: number): Rational => {
    let v = factor(depth);
    for (let t = peek(); t?.kind === 'op' && (t.op === '*' || t.op === '/'); t = peek()) {
      pos++;
      const r = factor(depth);
      if (t.op === '*') v = rational(v.n * r.n, v.d * r.d);
      else {
        if (r.n === 0n) fail(`division by zero at ${t.at}`);
        v = rational(v.n * r.d, v.d * r.n);
      }
    }
    return v;
  };
  const expr = (depth: number): Rational => {
    let v = term(depth);
    for (let t = peek(); t?.kind === 'op' && (t.op === '+' || t.op === '-'); t = peek()) {
      pos++;
      const r = term(depth);
      v =
        t.op === '+'
          ? rational(v.n * r.d + r.n * v.d, v.d * r.d)
          : rational(v.n * r.d - r.n * v.d, v.d * r.d);
    }
    return v;
  };

  try {
    const value = expr(0);
    if (pos < tokens.length) fail(`unexpected ${where(peek())}`);
    return { ok: true, value, numbers, text: text.trim() };
  } catch (err) {
    if (err instanceof ExpressionError) return { ok: false, error: err.message };
    throw err;
  }
}

class ExpressionError extends Error {}

/**
 * Whether `used` takes each of `given` at most once (or, with `all`, exactly once): a multiset
 * check by exact value. Returns the first number that is not available, or null.
 */
export function numbersProblem(
  used: readonly Rational[],
  given: readonly Rational[],
  all: boolean,
): string | null {
  const left = [...given];
  for (const u of used) {
    const k = left.findIndex((g) => equal(g, u));
    if (k < 0) {
      const times = given.filter((g) => equal(g, u)).length;
      return times === 0
        ? `${show(u)} is not one of the given numbers`
        : `${show(u)} is used more than ${times} time(s)`;
    }
    left.splice(k, 1);
  }
  if (all && left.length > 0) return `not every number is used (${left.map(show).join(', ')} left)`;
  return null;
}
