import type { Rng } from '../../core/rng.ts';
import { evaluateNode } from './arithmetic.ts';
import { verifyAugmentedSolution } from './calculator-annotations.ts';
import { formatLike, styleOf } from './number-tokens.ts';
import type { ProblemAnalysis } from './problem-analysis.ts';
import type { Rational } from './rational.ts';
import { decimalPlaces, equals, isInteger, key, rational, sign, toDecimalString } from './rational.ts';

/**
 * Numeric variants of an analysed problem (see problem-analysis.ts): pick new values for some
 * question numbers, re-run the annotation chain exactly, check every result stays "nice", and
 * rewrite question, annotations, prose and the final `####` line.
 */

export interface VariantOptions {
  /** New values lie within value × (1 ± range). */
  range: number;
  /** Keep the same number of digits (16 → 10…99). */
  sameDigits: boolean;
}

/**
 * A new value for `value` (written with `places` decimals): within ±range, a multiple of the
 * original's round step (80,000 → 40,000…90,000 in steps of 10,000; `fine` uses a 10× smaller
 * step), at least 2 when the original is, not in `avoid`. Null when no such value exists.
 */
export function perturbValue(
  value: Rational,
  places: number,
  rng: Rng,
  opts: VariantOptions & { fine?: boolean },
  avoid: ReadonlySet<string>,
): Rational | null {
  const scale = 10 ** places;
  const scaled = value.n * 10n ** BigInt(places);
  if (scaled % value.d !== 0n) return null;
  const m = Number(scaled / value.d);
  if (!Number.isSafeInteger(m) || m <= 0 || m > 1e15) return null;
  const digits = String(m).length;
  let tz = 0;
  while (tz < digits - 1 && m % 10 ** (tz + 1) === 0) tz++;
  let e = opts.fine ? Math.max(0, tz - 1) : tz;
  for (; e >= 0; e--) {
    const step = 10 ** e;
    let lo = Math.ceil((m * (1 - opts.range)) / step);
    let hi = Math.floor((m * (1 + opts.range)) / step);
    if (opts.sameDigits) {
      lo = Math.max(lo, Math.ceil(10 ** (digits - 1) / step));
      hi = Math.min(hi, Math.floor((10 ** digits - 1) / step));
    }
    if (m >= 2 * scale) lo = Math.max(lo, Math.ceil((2 * scale) / step));
    lo = Math.max(lo, 1);
    const options: number[] = [];
    // 16 should not become 20, nor 1.5 become 2.0: a non-zero last digit stays non-zero.
    const roundEnd = m % 10 !== 0;
    for (let k = lo; k <= hi && options.length <= 4096; k++) {
      const cand = k * step;
      if (cand === m || (roundEnd && cand % 10 === 0)) continue;
      if (avoid.has(key(rational(BigInt(cand), BigInt(scale))))) continue;
      options.push(cand);
    }
    if (options.length > 0) return rational(BigInt(options[rng.int(options.length)]!), BigInt(scale));
  }
  return null;
}

export interface Variant {
  question: string;
  solution: string;
  /** The new final answer, written plainly ("1234"). */
  answer: string;
  /** Which question values changed, as written: [["16", "17"], …]. */
  changes: Array<[string, string]>;
}

/** True when a recomputed result is as "nice" as the original: same sign, integer stays integer, short decimals. */
function isNice(original: Rational, next: Rational): boolean {
  if (sign(original) !== sign(next)) return false;
  if (isInteger(original)) return isInteger(next);
  const places = decimalPlaces(next);
  return places !== null && places <= Math.max(2, decimalPlaces(original) ?? 2);
}

function splice(text: string, edits: ReadonlyArray<{ start: number; end: number; text: string }>): string {
  let out = '';
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

type Edit = { start: number; end: number; text: string };

/** New values for `keys` (perturbable input values), each distinct from the others and from `avoid`. */
function pickNewInputs(
  a: ProblemAnalysis,
  keys: readonly string[],
  rng: Rng,
  opts: VariantOptions & { fine?: boolean },
): Map<string, Rational> {
  const avoid = new Set(a.avoidValues);
  const newInputs = new Map<string, Rational>();
  for (const k of keys) {
    const input = a.inputs.get(k)!;
    // A value with no free neighbour (3 between a 2 and a 4 of the same question) stays as it is.
    const next = perturbValue(input.value, input.places, rng, opts, avoid);
    if (next === null) continue;
    avoid.add(key(next));
    newInputs.set(k, next);
  }
  return newInputs;
}

/** Every annotation's result re-run with the new inputs, in order, or why one is unusable. */
function recompute(a: ProblemAnalysis, newInputs: ReadonlyMap<string, Rational>): Rational[] | string {
  const results: Rational[] = [];
  for (let i = 0; i < a.annotations.length; i++) {
    const { ann, lits, sources } = a.annotations[i]!;
    const sourceOf = new Map(lits.map((lit, j) => [lit, sources[j]!]));
    let value: Rational;
    try {
      value = evaluateNode(ann.tree, (lit) => {
        const src = sourceOf.get(lit)!;
        if (src.kind === 'input') return newInputs.get(src.key) ?? lit.value;
        if (src.kind === 'result') return results[src.index]!;
        return lit.value;
      });
    } catch {
      return `annotation ${i + 1} divides by zero`;
    }
    if (!isNice(ann.result, value))
      return `annotation ${i + 1} result ${toDecimalString(value) ?? 'non-terminating'} is not nice`;
    results.push(value);
  }
  // A changed input that equals a new result would make the variant's prose ambiguous.
  for (const v of newInputs.values())
    if (results.some((r) => equals(r, v))) return `new value ${toDecimalString(v)} equals a new result`;
  return results;
}

/** The question's changed numbers, rewritten in their original style. */
function questionEdits(
  a: ProblemAnalysis,
  newInputs: ReadonlyMap<string, Rational>,
): { edits: Edit[]; changes: Array<[string, string]> } {
  const edits: Edit[] = [];
  const changes: Array<[string, string]> = [];
  for (const t of a.questionTokens) {
    if (t.opaque) continue;
    const next = newInputs.get(key(t.value));
    if (next === undefined) continue;
    const text = formatLike(next, styleOf(t.text, t.value))!;
    edits.push({ start: t.start, end: t.end, text });
    changes.push([t.text, text]);
  }
  return { edits, changes };
}

/** The solution prose's numbers that follow a changed input or result, or why one cannot be rewritten. */
function proseEdits(
  a: ProblemAnalysis,
  newInputs: ReadonlyMap<string, Rational>,
  results: Rational[],
): Edit[] | string {
  const edits: Edit[] = [];
  for (const t of a.solutionTokens) {
    let next: Rational | undefined;
    if (t.display !== null) next = results[t.display];
    else
      for (const src of t.sources) {
        const v = src.kind === 'input' ? (newInputs.get(src.key) ?? t.value) : results[src.index]!;
        // The same prose number would need two different new values: it cannot be rewritten.
        if (next !== undefined && !equals(next, v)) return `'${t.text}' in the solution is ambiguous`;
        next = v;
      }
    if (next === undefined || equals(next, t.value)) continue;
    // "1000kb" or "3rd" cannot be rewritten safely, and left alone it would contradict the new numbers.
    if (t.opaque) return `'${t.text}' in the solution would go stale`;
    const text = formatLike(next, styleOf(t.text, t.value));
    if (text === null) return 'non-terminating value in the solution text';
    edits.push({ start: t.start, end: t.end, text });
  }
  return edits;
}

/** Each `<<expr=result>>` annotation rewritten with its new literals and result. */
function annotationEdits(
  a: ProblemAnalysis,
  newInputs: ReadonlyMap<string, Rational>,
  results: Rational[],
): Edit[] {
  const edits: Edit[] = [];
  for (let i = 0; i < a.annotations.length; i++) {
    const { ann, lits, sources } = a.annotations[i]!;
    const litEdits: Edit[] = [];
    lits.forEach((lit, j) => {
      const src = sources[j]!;
      const next =
        src.kind === 'input'
          ? newInputs.get(src.key)
          : src.kind === 'result'
            ? results[src.index]
            : undefined;
      if (next === undefined || equals(next, lit.value)) return;
      litEdits.push({
        start: lit.start,
        end: lit.end,
        text: formatLike(next, styleOf(lit.text, lit.value))!,
      });
    });
    const resultText = formatLike(results[i]!, styleOf(ann.resultText, ann.result))!;
    edits.push({ start: ann.start, end: ann.end, text: `<<${splice(ann.expr, litEdits)}=${resultText}>>` });
  }
  return edits;
}

/**
 * One attempt at a variant: change `keys` (perturbable input values), re-run the chain, rewrite.
 * Returns the variant or why this attempt failed.
 */
export function tryVariant(
  a: ProblemAnalysis,
  keys: readonly string[],
  rng: Rng,
  opts: VariantOptions & { fine?: boolean },
): Variant | string {
  const newInputs = pickNewInputs(a, keys, rng, opts);
  if (newInputs.size === 0) return `no new value for ${keys.join(', ')}`;
  const results = recompute(a, newInputs);
  if (typeof results === 'string') return results;
  const q = questionEdits(a, newInputs);
  const prose = proseEdits(a, newInputs, results);
  if (typeof prose === 'string') return prose;
  const final = results[results.length - 1]!;
  const sEdits: Edit[] = [
    ...prose,
    ...annotationEdits(a, newInputs, results),
    { start: a.finalSpan.start, end: a.finalSpan.end, text: formatLike(final, a.finalSpan.style)! },
  ];
  const question = splice(a.question, q.edits);
  const solution = splice(a.solution, sEdits);
  if (question === a.question) return 'question unchanged';
  const check = verifyAugmentedSolution(solution);
  if (!check.ok) return `rewritten solution fails verification: ${check.reason}`;
  return { question, solution, answer: toDecimalString(final)!, changes: q.changes };
}

/**
 * Up to `attempts` tries at a variant not in `seen` (question texts already produced). The first
 * half of the attempts change every perturbable value; the rest change one value with finer steps,
 * which succeeds more often when divisions must stay exact.
 */
export function generateVariant(
  a: ProblemAnalysis,
  rng: Rng,
  opts: VariantOptions & { attempts: number },
  seen: ReadonlySet<string>,
): Variant | null {
  for (let attempt = 0; attempt < opts.attempts; attempt++) {
    const all = attempt < Math.ceil(opts.attempts / 2);
    const keys = all ? a.perturbable : [a.perturbable[rng.int(a.perturbable.length)]!];
    const v = tryVariant(a, keys, rng, { ...opts, fine: !all && attempt % 2 === 1 });
    if (typeof v !== 'string' && !seen.has(v.question)) return v;
  }
  return null;
}
