import { verifyMath } from './verify-math.ts';

/**
 * Pulling a final answer out of a math response and deciding whether it equals the reference.
 * `judgeMath` is the MATH-grade verifier (src/verify); the numbers-only helpers below are the
 * judge it replaced, kept as `judgeMathNumbersOnly` for `bench judge`'s baseline.
 */

export type ExtractedBy = 'boxed' | 'hashes' | 'phrase' | 'whole' | 'math_block' | 'last_number';

export interface MathCompareOptions {
  /** Numbers match when |a − b| ≤ tolerance × max(|a|, |b|) (numbers-only judge: max(1, |b|)). */
  tolerance: number;
  /** '25%' reads as 25 ('strip') or 0.25 ('fraction'). */
  percent: 'strip' | 'fraction';
}

export interface MathJudgement {
  match: boolean;
  extracted: string | null;
  extractedBy: ExtractedBy | null;
  expected: string;
  reason: string;
}

/** Content of the last `\boxed{…}` / `\fbox{…}` (nested braces allowed), or `\boxed 5`. */
export function extractBoxed(text: string): string | null {
  const re = /\\(?:boxed|fbox)\s*(\{)?/g;
  let last: string | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index + m[0].length;
    if (m[1] === undefined) {
      const bare = /^\s*([^\s$]+)/.exec(text.slice(start));
      if (bare) last = bare[1]!;
      continue;
    }
    let depth = 1;
    let i = start;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    if (depth === 0) last = text.slice(start, i - 1).trim();
  }
  return last;
}

/** One number-like token: a LaTeX fraction, a/b, a decimal with optional thousands separators, or .5. */
const NUMBER_TOKEN =
  /[-+]?\\[dt]?frac\s*\{[^{}]+\}\s*\{[^{}]+\}|[-+]?\\[dt]?frac\d\d|[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+(?:\.\d+)?)?|[-+]?\.\d+/g;

/** The last number-like token in a text, or null. */
export function lastNumber(text: string): string | null {
  const all = text.match(NUMBER_TOKEN);
  return all && all.length > 0 ? all[all.length - 1]!.trim() : null;
}

/**
 * The candidate answer, tried in order: the last `\boxed{}`; the last `#### x` (GSM8K);
 * the last "the answer is x" / "answer: x" up to the end of its sentence; the last number.
 */
export function extractAnswer(text: string): { answer: string; by: ExtractedBy } | null {
  const boxed = extractBoxed(text);
  if (boxed !== null && boxed !== '') return { answer: boxed, by: 'boxed' };
  const hashes = [...text.matchAll(/####\s*([^\n]+)/g)];
  if (hashes.length > 0) {
    const a = hashes[hashes.length - 1]![1]!.trim();
    if (a !== '') return { answer: a, by: 'hashes' };
  }
  // The last "answer is/:" wins; its answer runs to the end of that line.
  const phrase = /\banswer\s*(?:is|:|=)\s*:?\s*/gi;
  let from = -1;
  for (let m = phrase.exec(text); m !== null; m = phrase.exec(text)) from = m.index + m[0].length;
  if (from >= 0) {
    const nl = text.indexOf('\n', from);
    let a = text.slice(from, nl < 0 ? text.length : nl);
    // Cut at the end of the sentence (a period not followed by a digit).
    const end = /\.(?!\d)/.exec(a);
    if (end) a = a.slice(0, end.index);
    a = a.trim();
    if (a !== '') return { answer: a, by: 'phrase' };
  }
  const last = lastNumber(text);
  return last === null ? null : { answer: last, by: 'last_number' };
}

/** The reference's final answer: after the last `####` (GSM8K), inside `\boxed{}`, else all of it. */
export function referenceAnswer(reference: string): string {
  const hashes = [...reference.matchAll(/####\s*([^\n]+)/g)];
  if (hashes.length > 0) return hashes[hashes.length - 1]![1]!.trim();
  return extractBoxed(reference) ?? reference.trim();
}

/** Strip LaTeX and typography that never changes a value: `$`, `\left`, `\text{}`, spacing, degrees… */
export function cleanAnswer(s: string): string {
  let t = s;
  t = t.replace(/\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}/g, ' $1 ');
  t = t.replace(/\\(?:left|right)\b/g, '');
  t = t.replace(/\\[!,;: ]/g, '').replace(/~/g, ' ');
  t = t.replace(/\{,\}/g, ',');
  t = t.replace(/\^\s*\{?\\circ\}?|°/g, '');
  t = t.replace(/\\\$|\$|€|£|¥/g, '');
  t = t.replace(/\\%/g, '%');
  t = t.replace(/\\\(|\\\)|\\\[|\\\]/g, '');
  t = t.replace(/\*\*/g, '').replace(/\u2212/g, '-');
  t = t
    .trim()
    .replace(/[.。]+$/, '')
    .trim();
  return t;
}

const PLAIN = /^[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function plainNumber(s: string): number | null {
  const t = s.trim();
  if (!PLAIN.test(t)) return null;
  const n = Number(t.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** A strictly numeric string (no words around it) as a number, or null. */
function strictNumber(s: string): number | null {
  const t = s.trim();
  const plain = plainNumber(t);
  if (plain !== null) return plain;
  const latex =
    /^([-+]?)\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}$/.exec(t) ?? /^([-+]?)\\[dt]?frac(\d)(\d)$/.exec(t);
  const slash = latex ?? /^([-+]?)\s*([^/]+?)\s*\/\s*([^/]+)$/.exec(t);
  if (slash) {
    const num = plainNumber(slash[2]!);
    const den = plainNumber(slash[3]!);
    if (num === null || den === null || den === 0) return null;
    return (slash[1] === '-' ? -1 : 1) * (num / den);
  }
  return null;
}

/**
 * Read an answer as a number, or null when it is not one. Accepts integers, decimals, `1,234`,
 * leading `+`, `18.0`, `3/4`, `\frac{3}{4}` / `\dfrac` / `\tfrac`, `$18`, `25%`, `x = 5`, and a
 * single number followed or preceded by words ("18 dollars"). Expressions like `x+1` are not numbers.
 */
export function parseNumber(s: string, percent: MathCompareOptions['percent'] = 'strip'): number | null {
  let t = cleanAnswer(s);
  const eq = t.lastIndexOf('=');
  if (eq >= 0) t = t.slice(eq + 1).trim();
  let isPercent = false;
  if (t.endsWith('%')) {
    isPercent = true;
    t = t.slice(0, -1).trim();
  }
  let n = strictNumber(t);
  if (n === null) {
    const tokens = t.match(NUMBER_TOKEN) ?? [];
    if (tokens.length !== 1) return null;
    const at = t.indexOf(tokens[0]!);
    // A sign glued to something before it is an operator (`x+1`), not part of a number.
    if (/^[-+]/.test(tokens[0]!) && at > 0 && !/\s/.test(t[at - 1]!)) return null;
    const rest = t.replace(tokens[0]!, ' ');
    // Only words may surround the number: digits or operators mean an expression.
    if (/[\d+\-*/^=<>\\{}()[\]]/.test(rest)) return null;
    if (/%\s*$/.test(rest) || /^\s*%/.test(rest)) isPercent = true;
    n = strictNumber(tokens[0]!);
    if (n === null) return null;
  }
  return isPercent && percent === 'fraction' ? n / 100 : n;
}

/** Canonical text for answers that are not numbers: no whitespace, no `\left`, `\dfrac` → `\frac`. */
export function canonicalText(s: string): string {
  return cleanAnswer(s)
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\s+/g, '');
}

export function numbersEqual(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
}

/** Judge a response against a reference answer with the MATH-grade verifier (src/verify). */
export function judgeMath(response: string, reference: string, opts: MathCompareOptions): MathJudgement {
  const v = verifyMath(response, reference, { tolerance: opts.tolerance, percent: opts.percent });
  return {
    match: v.correct,
    extracted: v.extracted,
    extractedBy: v.extractedBy,
    expected: v.expected ?? reference.trim(),
    reason: v.detail === '' ? v.reason : `${v.reason}: ${v.detail}`,
  };
}

/** The numbers-only judge this module had before the verifier: the baseline of `bench judge`. */
export function judgeMathNumbersOnly(
  response: string,
  reference: string,
  opts: MathCompareOptions,
): MathJudgement {
  const expected = referenceAnswer(reference);
  const found = extractAnswer(response);
  if (found === null)
    return {
      match: false,
      extracted: null,
      extractedBy: null,
      expected,
      reason: 'no answer found in response',
    };
  const base = { extracted: found.answer, extractedBy: found.by, expected };
  const want = parseNumber(expected, opts.percent);
  const got = parseNumber(found.answer, opts.percent);
  if (want !== null && got !== null) {
    const match = numbersEqual(got, want, opts.tolerance);
    return { ...base, match, reason: match ? 'equal' : `not equal (${got} vs ${want})` };
  }
  if (want !== null && got === null)
    return { ...base, match: false, reason: 'extracted answer is not a number' };
  const match = canonicalText(found.answer) === canonicalText(expected);
  return { ...base, match, reason: match ? 'equal (as text)' : 'not equal (as text)' };
}
