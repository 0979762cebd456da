/**
 * Numeric value of a MathJSON expression (as the compute engine's LaTeX parser writes it) at
 * given variable values. A fast, real-valued interpreter for the heads answers use; anything else
 * throws `Unsupported` and the caller falls back to the compute engine itself.
 */

export type MathJson =
  | number
  | string
  | { num: string }
  | { str: string }
  | { sym: string }
  | MathJson[]
  | { fn: MathJson[] };

export class Unsupported extends Error {}

const CONSTANTS: Record<string, number> = {
  Pi: Math.PI,
  ExponentialE: Math.E,
  e: Math.E,
  PositiveInfinity: Number.POSITIVE_INFINITY,
  NegativeInfinity: Number.NEGATIVE_INFINITY,
};

/** Symbols that are constants, not free variables. */
export function isConstantSymbol(name: string): boolean {
  return name in CONSTANTS;
}

/** `{num:"0.(3)"}` (a repeating decimal) or `{num:"12e-2"}` as a number. */
function readNum(text: string): number {
  const rep = /^(-?)(\d*)\.(\d*)\((\d+)\)$/.exec(text);
  if (rep) {
    const [, sign, int, fixed, cycle] = rep;
    const base = Number(`${int || '0'}.${fixed || '0'}`);
    const value = base + Number(cycle) / (10 ** fixed!.length * (10 ** cycle!.length - 1));
    return sign === '-' ? -value : value;
  }
  const n = Number(text);
  if (Number.isNaN(n)) throw new Unsupported(`number ${text}`);
  return n;
}

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) return Number.NaN;
  if (n > 170) return Number.POSITIVE_INFINITY;
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

/** Past this many factors C(n, k) ≥ 2^k exceeds every float: the loop would only reach Infinity slowly. */
const BINOMIAL_FLOAT_FACTORS = 1100;

function binomial(n: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(k) || k < 0 || n < 0 || k > n) return Number.NaN;
  if (Math.min(k, n - k) > BINOMIAL_FLOAT_FACTORS) return Number.POSITIVE_INFINITY;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

function gcd(a: number, b: number): number {
  if (!Number.isInteger(a) || !Number.isInteger(b)) return Number.NaN;
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x;
}

/** Real power: a negative base with an odd-denominator rational exponent keeps its sign. */
function power(a: number, b: number): number {
  if (a < 0 && !Number.isInteger(b)) {
    const inv = 1 / b;
    if (Number.isInteger(inv) && Math.abs(inv) % 2 === 1) return -((-a) ** b);
    return Number.NaN;
  }
  return a ** b;
}

type Fn = (args: number[]) => number;
const unary =
  (f: (x: number) => number): Fn =>
  (a) =>
    a.length === 1 ? f(a[0]!) : Number.NaN;

const FUNCTIONS: Record<string, Fn> = {
  Add: (a) => a.reduce((s, x) => s + x, 0),
  Subtract: (a) => (a.length === 1 ? -a[0]! : a.length === 2 ? a[0]! - a[1]! : Number.NaN),
  Negate: unary((x) => -x),
  Multiply: (a) => a.reduce((s, x) => s * x, 1),
  InvisibleOperator: (a) => a.reduce((s, x) => s * x, 1),
  Divide: (a) => (a.length === 2 ? a[0]! / a[1]! : Number.NaN),
  Rational: (a) => (a.length === 2 ? a[0]! / a[1]! : Number.NaN),
  Power: (a) => (a.length === 2 ? power(a[0]!, a[1]!) : Number.NaN),
  Square: unary((x) => x * x),
  Sqrt: unary((x) => (x < 0 ? Number.NaN : Math.sqrt(x))),
  Root: (a) => (a.length === 2 ? power(a[0]!, 1 / a[1]!) : Number.NaN),
  Exp: unary(Math.exp),
  Ln: unary((x) => (x <= 0 ? Number.NaN : Math.log(x))),
  Log: (a) =>
    a.length === 1 ? Math.log10(a[0]!) : a.length === 2 ? Math.log(a[0]!) / Math.log(a[1]!) : Number.NaN,
  Lb: unary(Math.log2),
  Lg: unary(Math.log10),
  Sin: unary(Math.sin),
  Cos: unary(Math.cos),
  Tan: unary(Math.tan),
  Cot: unary((x) => 1 / Math.tan(x)),
  Sec: unary((x) => 1 / Math.cos(x)),
  Csc: unary((x) => 1 / Math.sin(x)),
  Arcsin: unary(Math.asin),
  Arccos: unary(Math.acos),
  Arctan: unary(Math.atan),
  Sinh: unary(Math.sinh),
  Cosh: unary(Math.cosh),
  Tanh: unary(Math.tanh),
  Abs: unary(Math.abs),
  Factorial: unary(factorial),
  Binomial: (a) => (a.length === 2 ? binomial(a[0]!, a[1]!) : Number.NaN),
  Floor: unary(Math.floor),
  Ceil: unary(Math.ceil),
  Max: (a) => Math.max(...a),
  Min: (a) => Math.min(...a),
  GCD: (a) => a.reduce(gcd),
  LCM: (a) => a.reduce((x, y) => Math.abs(x * y) / gcd(x, y)),
  Degrees: unary((x) => x),
};

/** The expression's free variables (symbols that are not known constants), sorted. */
export function freeVariables(expr: MathJson, out: Set<string> = new Set()): Set<string> {
  if (typeof expr === 'string') {
    if (!isConstantSymbol(expr) && !expr.startsWith("'")) out.add(expr);
  } else if (Array.isArray(expr)) {
    for (let i = 1; i < expr.length; i++) freeVariables(expr[i]!, out);
  } else if (typeof expr === 'object' && 'fn' in expr) freeVariables(expr.fn, out);
  else if (typeof expr === 'object' && 'sym' in expr) freeVariables(expr.sym, out);
  return out;
}

/** Value of `expr` with `env` binding its free variables. Throws `Unsupported` for unknown heads. */
export function evaluate(expr: MathJson, env: Readonly<Record<string, number>> = {}): number {
  if (typeof expr === 'number') return expr;
  if (typeof expr === 'string') {
    const c = CONSTANTS[expr];
    if (c !== undefined) return c;
    const v = env[expr];
    if (v !== undefined) return v;
    throw new Unsupported(`symbol ${expr}`);
  }
  if (Array.isArray(expr)) {
    const head = expr[0];
    if (head === 'Delimiter' || head === 'Sequence') {
      // `(x + 1)`: parentheses around one value; a sequence of several is not a number.
      let inner: MathJson | undefined = head === 'Delimiter' ? expr[1] : expr;
      if (Array.isArray(inner) && inner[0] === 'Sequence') inner = inner.length === 2 ? inner[1] : undefined;
      if (inner === undefined) throw new Unsupported('sequence');
      return evaluate(inner, env);
    }
    const fn = typeof head === 'string' ? FUNCTIONS[head] : undefined;
    if (fn === undefined) throw new Unsupported(`head ${JSON.stringify(head)}`);
    const args: number[] = [];
    for (let i = 1; i < expr.length; i++) args.push(evaluate(expr[i]!, env));
    return fn(args);
  }
  if ('num' in expr) return readNum(expr.num);
  if ('sym' in expr) return evaluate(expr.sym, env);
  if ('fn' in expr) return evaluate(expr.fn, env);
  throw new Unsupported('string');
}
