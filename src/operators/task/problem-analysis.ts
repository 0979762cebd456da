import type { ArithNode } from './arithmetic.ts';
import { evaluateNode, literals } from './arithmetic.ts';
import type { Annotation } from './calculator-annotations.ts';
import { parseAnnotations } from './calculator-annotations.ts';
import type { NumberToken } from './number-tokens.ts';
import { findNumberTokens, numberWordValues, styleOf } from './number-tokens.ts';
import type { Rational } from './rational.ts';
import {
  add,
  decimalPlaces,
  div,
  equals,
  isInteger,
  key,
  mul,
  parseDecimal,
  rational,
  sign,
  sub,
  toNumber,
} from './rational.ts';

/**
 * Reading a GSM8K-style worked solution so its numbers can be changed safely (numeric_augment).
 *
 * Every number literal in an annotation is traced to its source: a question number (by value),
 * the result of an earlier annotation (by value), or a constant the solver brought in (2 for
 * "half", 60 for minutes). All occurrences of one question value change together. The analysis
 * refuses what it cannot trace (each refusal has a reason, below), and marks a question number as
 * changeable only when nothing suggests it is tied to another number. docs/operators.md lists
 * every rule with the GSM8K case that motivated it.
 */

export type NotAugmentable =
  | 'no_annotations'
  | 'unparsable'
  | 'inconsistent'
  | 'no_final_answer'
  | 'final_mismatch'
  | 'negative_result'
  | 'unannotated_math'
  | 'unused_number'
  | 'untraced_constant'
  | 'ambiguous'
  | 'no_inputs';

/**
 * Constants a solver brings in from world knowledge (units, percent, calendar) rather than from
 * the question. Any other constant in an annotation is probably the result of arithmetic done
 * off the record, which would go stale when the inputs change.
 */
const KNOWN_CONSTANTS = new Set([7, 12, 16, 24, 28, 30, 31, 36, 52, 60, 360, 365, 1024, 3600, 5280]);

/**
 * Values that are usually facts about the world rather than choices of the problem setter
 * (days in a week or month, hours, minutes, a dozen, percent, a year): a question number with
 * one of these values is not changed ("this month has 40 days").
 */
const WORLD_CONSTANTS = new Set([7, 12, 24, 28, 29, 30, 31, 52, 60, 100, 365, 366, 1000, 3600]);

function isKnownConstant(
  c: Rational,
  questionValues: ReadonlySet<string>,
  words: ReadonlySet<number>,
): boolean {
  if (questionValues.has(key(c))) return true;
  // A percentage from the question in decimal form: 25% as .25, 1.25 (25% more) or .75 (25% off).
  const one = rational(1n);
  const hundred = rational(100n);
  for (const form of [mul(c, hundred), mul(sub(one, c), hundred), mul(sub(c, one), hundred)])
    if (questionValues.has(key(form))) return true;
  const x = toNumber(c);
  if (words.has(x)) return true;
  // Small whole constants must be explained by a number word ("four times"), be 1 or 2, or be a
  // unit constant: a bare "5 girls" where the question said "4 friends" (and Maria) is arithmetic
  // done off the record, and would go stale.
  if (isInteger(c)) return x === 1 || x === 2 || KNOWN_CONSTANTS.has(x) || /^10+$/.test(String(x));
  // Fractions of one with at most two decimals: .5, .25, .01, 0.75…
  const places = decimalPlaces(c);
  return x > 0 && x < 1 && places !== null && places <= 2;
}

/** `=` followed by a number that is not an annotation: arithmetic written out without `<< >>`. */
const UNANNOTATED_EQUATION = /=\s*\$?\s*(?!<<)[-.]?\d/;

export type LiteralSource =
  | { kind: 'input'; key: string }
  | { kind: 'result'; index: number }
  | { kind: 'const' };

/**
 * A number in the solution's prose. `display` is the annotation whose result it shows (it sits
 * right after `>>`); otherwise `sources` lists what it may stand for: a question input of the same
 * value, or the result of an annotation on the same or an earlier line (a result is not quoted
 * before the line that computes it, so "12 inches in 1 foot" is not the final answer 1).
 */
export interface ProseToken extends NumberToken {
  display: number | null;
  sources: Array<{ kind: 'input'; key: string } | { kind: 'result'; index: number }>;
}
export type Literal = Extract<ArithNode, { type: 'num' }>;

export interface InputValue {
  value: Rational;
  /** Most digits after the point it is written with. */
  places: number;
  count: number;
  uses: number;
}

export interface ProblemAnalysis {
  readonly question: string;
  readonly solution: string;
  readonly questionTokens: readonly NumberToken[];
  readonly inputs: ReadonlyMap<string, InputValue>;
  /** Input value keys that may be changed, in order of first appearance. */
  readonly perturbable: readonly string[];
  readonly annotations: ReadonlyArray<{ ann: Annotation; lits: Literal[]; sources: LiteralSource[] }>;
  /** The final answer's text span after `####`. */
  readonly finalSpan: { start: number; end: number; style: { commas: boolean; places: number } };
  /** Number tokens of the solution outside annotations and the final answer, with what they may stand for. */
  readonly solutionTokens: readonly ProseToken[];
  /** Every number value written in the question (including opaque ones). */
  readonly questionValues: ReadonlySet<string>;
  /**
   * Values a new input must not take, so variants stay unambiguous: the question's numbers, the
   * solution's constants and the question's number words ("three bags" keeps 3 for itself).
   */
  readonly avoidValues: ReadonlySet<string>;
}

/** Why a problem cannot be augmented (a reason, and the detail in words). */
export type Refusal = { reason: NotAugmentable; detail: string };
type Traced = { ann: Annotation; lits: Literal[]; sources: LiteralSource[] };
type NumberWords = ReturnType<typeof numberWordValues>;

const isRefusal = (x: object): x is Refusal => 'reason' in x && 'detail' in x;

/** The solution's annotations, each checked to be exact and non-negative. */
function checkedAnnotations(solution: string): Annotation[] | Refusal {
  let anns: Annotation[];
  try {
    anns = parseAnnotations(solution);
  } catch (err) {
    return { reason: 'unparsable', detail: (err as Error).message };
  }
  if (anns.length === 0)
    return { reason: 'no_annotations', detail: 'the solution has no <<expr=result>> annotations' };
  for (let i = 0; i < anns.length; i++) {
    const a = anns[i]!;
    let v: Rational;
    try {
      v = evaluateNode(a.tree);
    } catch (err) {
      return { reason: 'inconsistent', detail: `annotation ${i + 1}: ${(err as Error).message}` };
    }
    if (!equals(v, a.result))
      return {
        reason: 'inconsistent',
        detail: `annotation ${i + 1} <<${a.expr}=${a.resultText}>> is not exact`,
      };
    // Prose tends to restate a negative result as a positive loss ("lost $9"), which cannot be traced.
    if (sign(v) < 0)
      return {
        reason: 'negative_result',
        detail: `annotation ${i + 1} <<${a.expr}=${a.resultText}>> is negative`,
      };
  }
  return anns;
}

/** The `#### <answer>` line: where it starts, and the answer's span (it must equal the last result). */
function finalAnswer(
  solution: string,
  anns: readonly Annotation[],
): { hashes: number; finalSpan: ProblemAnalysis['finalSpan'] } | Refusal {
  const hashes = solution.lastIndexOf('####');
  if (hashes < 0) return { reason: 'no_final_answer', detail: "no '#### <answer>' line" };
  const lineEnd = solution.indexOf('\n', hashes);
  const lineStop = lineEnd < 0 ? solution.length : lineEnd;
  const m = /^(\s*)(\S(?:.*\S)?)?\s*$/.exec(solution.slice(hashes + 4, lineStop));
  const finalText = m?.[2] ?? '';
  const final = parseDecimal(finalText);
  if (final === null)
    return { reason: 'no_final_answer', detail: `final answer '${finalText}' is not a number` };
  const last = anns[anns.length - 1]!;
  if (!equals(final, last.result))
    return {
      reason: 'final_mismatch',
      detail: `final answer ${finalText} is not the last annotation's result ${last.resultText}`,
    };
  const finalStart = hashes + 4 + m![1]!.length;
  return {
    hashes,
    finalSpan: { start: finalStart, end: finalStart + finalText.length, style: styleOf(finalText, final) },
  };
}

/** An equation the prose computes outside the annotations (before the `####` line), if any. */
function unannotatedMath(solution: string, anns: readonly Annotation[], hashes: number): Refusal | null {
  let prose = '';
  let at = 0;
  for (const a of anns) {
    prose += `${solution.slice(at, a.start)}<<>>`;
    at = a.end;
  }
  prose += solution.slice(at, hashes);
  const unannotated = UNANNOTATED_EQUATION.exec(prose);
  if (!unannotated) return null;
  return {
    reason: 'unannotated_math',
    detail: `the solution computes outside annotations near '${prose.slice(Math.max(0, unannotated.index - 20), unannotated.index + 6).trim()}'`,
  };
}

/** The question's changeable values (counted, with their decimals) and the values tied to an ordinal or opaque token. */
function questionInputs(
  question: string,
  questionTokens: readonly NumberToken[],
): { inputs: Map<string, InputValue>; opaqueValues: Set<string> } {
  const opaqueValues = new Set(questionTokens.filter((t) => t.opaque).map((t) => key(t.value)));
  // "the first 3 tests and his 4th": an ordinal ties the counts next to it.
  for (const t of questionTokens)
    if (/^(st|nd|rd|th)\b/i.test(question.slice(t.end, t.end + 3)) && isInteger(t.value)) {
      opaqueValues.add(key(sub(t.value, rational(1n))));
      opaqueValues.add(key(add(t.value, rational(1n))));
    }
  const inputs = new Map<string, InputValue>();
  for (const t of questionTokens) {
    if (t.opaque) continue;
    const k = key(t.value);
    const cur = inputs.get(k);
    if (cur) {
      cur.count++;
      cur.places = Math.max(cur.places, t.places);
    } else inputs.set(k, { value: t.value, places: t.places, count: 1, uses: 0 });
  }
  return { inputs, opaqueValues };
}

/**
 * Each annotation literal traced to a question number, an earlier result or a known constant
 * (counting the inputs' uses); refused when a literal is ambiguous or untraced.
 */
function traceAnnotations(
  anns: readonly Annotation[],
  inputs: Map<string, InputValue>,
  questionValues: ReadonlySet<string>,
  words: NumberWords,
): { annotations: Traced[]; constants: Rational[] } | Refusal {
  const annotations: Traced[] = [];
  const constants: Rational[] = [];
  for (let i = 0; i < anns.length; i++) {
    const ann = anns[i]!;
    const lits = literals(ann.tree);
    const sources: LiteralSource[] = [];
    for (const lit of lits) {
      const found: LiteralSource[] = [];
      const k = key(lit.value);
      if (inputs.has(k)) found.push({ kind: 'input', key: k });
      for (let j = 0; j < i; j++)
        if (equals(anns[j]!.result, lit.value)) found.push({ kind: 'result', index: j });
      const fromResult = found.find((f) => f.kind === 'result');
      // x/x or x-x on one earlier result: the second x is more likely a constant of the same value.
      if (
        fromResult &&
        found.length === 1 &&
        sources.some((s) => s.kind === 'result' && s.index === (fromResult as { index: number }).index)
      )
        return {
          reason: 'ambiguous',
          detail: `annotation ${i + 1} uses the result of annotation ${(fromResult as { index: number }).index + 1} twice`,
        };
      if (found.length > 1)
        return {
          reason: 'ambiguous',
          detail: `annotation ${i + 1}: ${lit.text} could be ${found.map((s) => (s.kind === 'input' ? 'a question number' : `the result of annotation ${(s as { index: number }).index + 1}`)).join(' or ')}`,
        };
      const src = found[0] ?? { kind: 'const' };
      if (src.kind === 'input') inputs.get(src.key)!.uses++;
      if (src.kind === 'const') {
        if (!isKnownConstant(lit.value, questionValues, words))
          return {
            reason: 'untraced_constant',
            detail: `annotation ${i + 1}: ${lit.text} comes from neither the question nor an earlier annotation`,
          };
        constants.push(lit.value);
      }
      sources.push(src);
    }
    annotations.push({ ann, lits, sources });
  }
  return { annotations, constants };
}

/** The input keys that may change, in order; refused when a question number goes unused or none may change. */
function perturbableInputs(
  question: string,
  questionTokens: readonly NumberToken[],
  inputs: ReadonlyMap<string, InputValue>,
  constants: readonly Rational[],
  words: NumberWords,
  opaqueValues: ReadonlySet<string>,
): string[] | Refusal {
  const one = rational(1n);
  const hundred = rational(100n);
  const percentForms = (v: Rational) => {
    const pct = div(v, hundred);
    return [pct, sub(one, pct), add(one, pct)];
  };
  // A question number the annotations never use is either a percentage used in decimal form, a
  // small count, or part of a relation the solver handled in prose ("16 guests: 10 want chicken,
  // 6 pasta"; "the lowest score, 71"). Changing its neighbours could break that relation unseen.
  const percentTokens = new Set(
    questionTokens.filter((t) => question[t.end] === '%').map((t) => key(t.value)),
  );
  for (const [k, input] of inputs) {
    if (input.uses > 0 || toNumber(input.value) <= 2 || percentTokens.has(k)) continue;
    if (constants.some((c) => percentForms(input.value).some((f) => equals(f, c)))) continue;
    return { reason: 'unused_number', detail: `the solution never uses the question's ${k}` };
  }
  const perturbable: string[] = [];
  for (const [k, input] of inputs) {
    if (input.uses === 0 || input.uses > input.count) continue;
    if (sign(sub(input.value, one)) <= 0) continue;
    // "five pies" elsewhere in the text, or "his 4th test", would contradict a changed 5 or 4.
    if (words.has(toNumber(input.value)) || opaqueValues.has(k)) continue;
    if (WORLD_CONSTANTS.has(toNumber(input.value))) continue;
    if (constants.some((c) => percentForms(input.value).some((f) => equals(f, c)))) continue;
    perturbable.push(k);
  }
  if (perturbable.length === 0)
    return { reason: 'no_inputs', detail: 'no question number can be changed safely' };
  return perturbable;
}

/** The solution's number tokens outside annotations and the final answer, with what each may stand for. */
function proseTokens(
  solution: string,
  anns: readonly Annotation[],
  finalSpan: ProblemAnalysis['finalSpan'],
  inputs: ReadonlyMap<string, InputValue>,
): ProseToken[] {
  const solutionTokens: ProseToken[] = [];
  for (const t of findNumberTokens(solution, 'solution')) {
    if (anns.some((a) => t.start < a.end && t.end > a.start)) continue;
    if (t.start < finalSpan.end && t.end > finalSpan.start) continue;
    // The number right after `>>` displays that annotation's result, even when glued to a unit ("72Mb").
    const display = anns.findIndex((a) => a.end === t.start);
    if (display >= 0) {
      solutionTokens.push({ ...t, opaque: false, display, sources: [] });
      continue;
    }
    const k = key(t.value);
    const sources: ProseToken['sources'] = inputs.has(k) ? [{ kind: 'input', key: k }] : [];
    anns.forEach((a, j) => {
      // A result can be quoted from the start of its own line ("guessed 60 because 20 + 40 = <<…>>").
      const lineStart = solution.lastIndexOf('\n', a.start) + 1;
      if (lineStart <= t.start && equals(a.result, t.value)) sources.push({ kind: 'result', index: j });
    });
    solutionTokens.push({ ...t, display: null, sources });
  }
  return solutionTokens;
}

export function analyzeProblem(question: string, solution: string): ProblemAnalysis | Refusal {
  const anns = checkedAnnotations(solution);
  if (isRefusal(anns)) return anns;
  const answer = finalAnswer(solution, anns);
  if (isRefusal(answer)) return answer;
  const { hashes, finalSpan } = answer;
  const untraced = unannotatedMath(solution, anns, hashes);
  if (untraced) return untraced;
  const questionTokens = findNumberTokens(question, 'question');
  const questionValues = new Set(questionTokens.map((t) => key(t.value)));
  const { inputs, opaqueValues } = questionInputs(question, questionTokens);
  const words = numberWordValues(`${question}\n${solution}`);
  const traced = traceAnnotations(anns, inputs, questionValues, words);
  if (isRefusal(traced)) return traced;
  const { annotations, constants } = traced;
  const perturbable = perturbableInputs(question, questionTokens, inputs, constants, words, opaqueValues);
  if (isRefusal(perturbable)) return perturbable;
  const solutionTokens = proseTokens(solution, anns, finalSpan, inputs);
  const avoidValues = new Set(questionValues);
  for (const a of anns) avoidValues.add(key(a.result));
  for (const c of constants) avoidValues.add(key(c));
  for (const w of words) avoidValues.add(String(w));
  return {
    question,
    solution,
    questionTokens,
    inputs,
    perturbable,
    annotations,
    finalSpan,
    solutionTokens,
    questionValues,
    avoidValues,
  };
}
