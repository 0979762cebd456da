import { ComputeEngine, expand } from '@cortex-js/compute-engine';
import { Rng } from '../core/rng.ts';
import { evaluate, freeVariables, type MathJson, Unsupported } from './evaluate.ts';
import { abs, cmp, exactValue, mul, parseDecimal, rational, statedDecimals, sub } from './exact.ts';
import type { Deadline } from './limits.ts';

/**
 * Equality of two scalar expressions. Constants are compared as numbers with a relative
 * tolerance; expressions with free variables are evaluated at seeded random points (the same
 * points for both sides); what the fast interpreter cannot evaluate goes to the compute engine,
 * which decides symbolically (simplifying the difference to 0) or numerically.
 */

export type Tri = 'equal' | 'different' | 'unknown';

let engine: ComputeEngine | undefined;
/**
 * The engine, built on first use and warmed (its first simplification and numeric evaluation
 * compile rule sets: about a second on a busy machine). None of it is charged to the judgement
 * that needs it, so a cold start never turns a verdict into a timeout.
 */
function ce(deadline: Deadline): ComputeEngine {
  if (engine === undefined) {
    const t0 = performance.now();
    const e = new ComputeEngine();
    try {
      expand(e.box(['Subtract', ['Power', ['Add', 'x', 1], 2], ['Multiply', 'x', 'x']] as never)).simplify();
      e.box(['Divide', ['Sqrt', 2], 3] as never).N();
    } catch {
      // A warm-up that fails only leaves the engine cold.
    }
    engine = e;
    deadline.grant(performance.now() - t0);
  }
  return engine;
}

/** Whether an expression holds a decimal fraction literal (`0.333`, `1.5e-3`): an approximation. */
function writtenInDecimals(json: MathJson): boolean {
  if (typeof json === 'number') return !Number.isInteger(json);
  if (Array.isArray(json)) return json.some((j, i) => i > 0 && writtenInDecimals(j));
  return typeof json === 'object' && json !== null && 'num' in json && /[.eE]/.test(json.num);
}

/** Whether an expression names infinity itself (not a finite value too large for a float). */
function namesInfinity(json: MathJson): boolean {
  if (typeof json === 'string')
    return json === 'PositiveInfinity' || json === 'NegativeInfinity' || json === 'ComplexInfinity';
  return Array.isArray(json) && json.some((j, i) => i > 0 && namesInfinity(j));
}

/**
 * How far a response may be from `gold` and still match: the relative tolerance, but never half a
 * unit of the gold's last stated digit or more (`123456.7` does not accept `123456.8`).
 */
function allowedGap(gold: MathJson, tolerance: number, scale: number, goldDigits: boolean): number {
  const rel = tolerance * scale;
  const decimals = goldDigits ? statedDecimals(gold) : null;
  return decimals === null ? rel : Math.min(rel, 0.5 * 10 ** -decimals * (1 - 1e-9));
}

/**
 * Two constants: exactly, as rationals, when both have an exact value (an integer gold then needs
 * that very integer); else as floats, where a value too large for a float is not infinity.
 */
function compareConstants(
  gold: MathJson,
  got: MathJson,
  tolerance: number,
  deadline: Deadline,
  goldDigits: boolean,
): Tri {
  // Both sides are priced (a too costly part throws) before any float evaluation runs.
  const eg = exactValue(gold);
  const er = exactValue(got);
  if (eg !== null && er !== null) {
    if (cmp(eg, er) === 0) return 'equal';
    if (eg.d === 1n && goldDigits) return 'different';
    // A tolerance is for decimal approximations: two values written exactly are equal or not.
    if (!writtenInDecimals(gold) && !writtenInDecimals(got)) return 'different';
    const gap = abs(sub(eg, er));
    const big = cmp(abs(eg), abs(er)) >= 0 ? abs(eg) : abs(er);
    const tol = parseDecimal(String(tolerance)) ?? rational(0n);
    if (cmp(gap, mul(tol, big)) > 0) return 'different';
    const decimals = goldDigits ? statedDecimals(gold) : null;
    if (decimals === null) return 'equal';
    // Strictly under half a unit of the gold's last stated digit.
    return cmp(mul(gap, rational(2n * 10n ** BigInt(decimals))), rational(1n)) < 0 ? 'equal' : 'different';
  }
  const va = safeEvaluate(gold, {}) ?? engineValue(gold, deadline);
  const vb = safeEvaluate(got, {}) ?? engineValue(got, deadline);
  if (va === null || vb === null || Number.isNaN(va) || Number.isNaN(vb)) {
    deadline.check('symbolic comparison');
    return engineSymbolic(gold, got, deadline);
  }
  if (!Number.isFinite(va) || !Number.isFinite(vb)) {
    const infA = namesInfinity(gold) && !Number.isFinite(va);
    const infB = namesInfinity(got) && !Number.isFinite(vb);
    if (infA && infB) return va === vb ? 'equal' : 'different';
    // ∞ against a finite value (however large) differs; two overflowed values cannot be told apart.
    return infA || infB ? 'different' : 'unknown';
  }
  // Two integers are equal or not: a tolerance would let 123456788 pass for 123456789.
  if (Number.isInteger(va) && Number.isInteger(vb)) return va === vb ? 'equal' : 'different';
  const gap = allowedGap(gold, tolerance, Math.max(Math.abs(va), Math.abs(vb)), goldDigits);
  return va === vb || Math.abs(va - vb) <= gap + 1e-12 ? 'equal' : 'different';
}

export function numbersClose(a: number, b: number, tolerance: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;
}

/** Points drawn from one fixed seed: a verdict never depends on the run or the order of calls. */
const SAMPLE_POINTS = 6;
function samplePoints(vars: readonly string[]): Array<Record<string, number>> {
  const rng = new Rng(`winnow-verify:${vars.join(',')}`);
  return Array.from({ length: SAMPLE_POINTS }, () => {
    const env: Record<string, number> = {};
    // Away from 0 and 1, where distinct expressions coincide most (x vs x², x vs √x).
    for (const v of vars) env[v] = (rng.float() < 0.5 ? -1 : 1) * (1.3 + 2.1 * rng.float());
    return env;
  });
}

/**
 * Whole-number points 2…13, for expressions defined only there (`(-1)^{n+1}`, `n!`): used only
 * when neither side could be evaluated at enough real points.
 */
function integerPoints(vars: readonly string[]): Array<Record<string, number>> {
  const rng = new Rng(`winnow-verify-integers:${vars.join(',')}`);
  return Array.from({ length: SAMPLE_POINTS }, () => {
    const env: Record<string, number> = {};
    for (const v of vars) env[v] = 2 + Math.floor(12 * rng.float());
    return env;
  });
}

function safeEvaluate(json: MathJson, env: Record<string, number>): number | null {
  try {
    return evaluate(json, env);
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

/**
 * Heads the engine may spend unbounded time on (iterations, limits, calculus): answers holding
 * them are never handed to it — a 0 (`unsure`) is better than a judgement that cannot be bounded.
 */
const ENGINE_UNSAFE = new Set([
  'Sum',
  'Product',
  'Integrate',
  'Limit',
  'D',
  'Derivative',
  'ND',
  'NIntegrate',
  'NLimit',
  'Loop',
  'Map',
  'Reduce',
  'Fold',
  'Range',
  'Fibonacci',
  'Mod',
]);

function engineSafe(json: MathJson): boolean {
  if (!Array.isArray(json)) return true;
  if (typeof json[0] === 'string' && ENGINE_UNSAFE.has(json[0])) return false;
  return json.every(engineSafe);
}

/** The compute engine's own numeric value of a constant expression, or null. */
function engineValue(json: MathJson, deadline: Deadline): number | null {
  if (!engineSafe(json)) return null;
  try {
    const engine = ce(deadline);
    const v = engine.withTimeLimit(deadline.remaining(), () => engine.box(json as never).N().re);
    return typeof v === 'number' && !Number.isNaN(v) ? v : null;
  } catch {
    return null;
  }
}

/** The compute engine's symbolic verdict on a − b = 0 (slow: only where interpretation failed). */
function engineSymbolic(a: MathJson, b: MathJson, deadline: Deadline): Tri {
  if (!engineSafe(a) || !engineSafe(b)) return 'unknown';
  try {
    const engine = ce(deadline);
    // The engine's own deadline interrupts its long searches (a CancellationError lands below).
    const zero = engine.withTimeLimit(deadline.remaining(), () =>
      expand(engine.box(['Subtract', a, b] as never))
        .simplify()
        .isSame(0),
    );
    return zero ? 'equal' : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function compareScalars(
  a: MathJson,
  b: MathJson,
  tolerance: number,
  deadline: Deadline,
  goldDigits = true,
): Tri {
  const vars = [...freeVariables(a, freeVariables(b))].sort();
  if (vars.length === 0) return compareConstants(a, b, tolerance, deadline, goldDigits);
  if (vars.length > 8) return 'unknown';
  const real = agreeAt(samplePoints(vars), a, b, tolerance);
  if (real === 'engine') {
    deadline.check('symbolic comparison');
    return engineSymbolic(a, b, deadline);
  }
  deadline.check('numeric sampling');
  if (real !== 'unknown') return real;
  // Undefined at (almost) every real point on both sides: compare on whole numbers.
  const whole = agreeAt(integerPoints(vars), a, b, tolerance);
  return whole === 'engine' ? 'unknown' : whole;
}

/** Both sides at each point: different at the first disagreement, equal when ≥ 3 points agree. */
function agreeAt(
  points: Array<Record<string, number>>,
  a: MathJson,
  b: MathJson,
  tolerance: number,
): Tri | 'engine' {
  let agreed = 0;
  for (const env of points) {
    const va = safeEvaluate(a, env);
    const vb = safeEvaluate(b, env);
    if (va === null || vb === null) return 'engine';
    const fa = Number.isFinite(va);
    const fb = Number.isFinite(vb);
    if (!fa && !fb) continue;
    if (fa !== fb) return 'different';
    if (!numbersClose(va, vb, Math.max(tolerance, 1e-9))) return 'different';
    agreed++;
  }
  return agreed >= 3 ? 'equal' : 'unknown';
}

/**
 * Whether `a` is a constant multiple of `b` as functions (`a = k·b`, k ≠ 0): the test for two
 * equations or inequalities being the same statement. Returns the sign of k, or null.
 */
export function proportional(a: MathJson, b: MathJson, deadline: Deadline): 1 | -1 | null {
  const vars = [...freeVariables(a, freeVariables(b))].sort();
  if (vars.length === 0 || vars.length > 8) return null;
  let ratio: number | null = null;
  let seen = 0;
  for (const env of samplePoints(vars)) {
    const va = safeEvaluate(a, env);
    const vb = safeEvaluate(b, env);
    if (va === null || vb === null || !Number.isFinite(va) || !Number.isFinite(vb)) return null;
    if (Math.abs(va) < 1e-12 && Math.abs(vb) < 1e-12) continue;
    if (Math.abs(vb) < 1e-12) return null;
    const r = va / vb;
    if (ratio === null) ratio = r;
    else if (!numbersClose(r, ratio, 1e-9)) return null;
    seen++;
  }
  deadline.check('equation comparison');
  if (ratio === null || seen < 3 || Math.abs(ratio) < 1e-12) return null;
  return ratio > 0 ? 1 : -1;
}
