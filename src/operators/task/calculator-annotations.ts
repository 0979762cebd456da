import { extractGsm8kAnswer } from './answer-extraction.ts';
import type { ArithNode } from './arithmetic.ts';
import { evaluateNode, parseArithmetic } from './arithmetic.ts';
import type { Rational } from './rational.ts';
import { equals, parseDecimal, toDecimalString } from './rational.ts';

/**
 * GSM8K-style worked solutions carry calculator annotations: `16-3-4=<<16-3-4=9>>9`, where the
 * part inside `<< >>` is an expression and its result. This module finds them and checks them.
 */
export interface Annotation {
  /** Offsets of the whole `<<…>>` in the solution. */
  start: number;
  end: number;
  /** The expression text and where it starts in the solution. */
  expr: string;
  exprStart: number;
  /** The stated result text (after the last `=`) and its value. */
  resultText: string;
  result: Rational;
  tree: ArithNode;
}

const ANNOTATION = /<<([^<>]*)>>/g;

/**
 * Every annotation in order. Throws an Error naming the annotation (1-based) when one has no
 * `=`, an expression that does not parse, or a result that is not a number.
 */
export function parseAnnotations(solution: string): Annotation[] {
  const out: Annotation[] = [];
  let k = 0;
  for (const m of solution.matchAll(ANNOTATION)) {
    k++;
    const body = m[1]!;
    const eq = body.lastIndexOf('=');
    if (eq < 0) throw new Error(`annotation ${k} <<${body}>> has no '='`);
    const expr = body.slice(0, eq);
    const resultText = body.slice(eq + 1).trim();
    const result = parseDecimal(resultText);
    if (result === null)
      throw new Error(`annotation ${k} <<${body}>>: result '${resultText}' is not a number`);
    let tree: ArithNode;
    try {
      tree = parseArithmetic(expr);
    } catch (err) {
      throw new Error(`annotation ${k} <<${body}>>: ${(err as Error).message}`);
    }
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      expr,
      exprStart: m.index + 2,
      resultText,
      result,
      tree,
    });
  }
  return out;
}

/**
 * Re-evaluate every annotation of a solution and check that its final `#### n` answer equals
 * the last annotation's result, exactly. The acceptance check for augmented tasks.
 */
export function verifyAugmentedSolution(solution: string): { ok: boolean; reason?: string } {
  let annotations: Annotation[];
  try {
    annotations = parseAnnotations(solution);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (annotations.length === 0) return { ok: false, reason: 'no calculator annotations (<<expr=result>>)' };
  for (let i = 0; i < annotations.length; i++) {
    const a = annotations[i]!;
    let value: Rational;
    try {
      value = evaluateNode(a.tree);
    } catch (err) {
      return {
        ok: false,
        reason: `annotation ${i + 1} <<${a.expr}=${a.resultText}>>: ${(err as Error).message}`,
      };
    }
    if (!equals(value, a.result)) {
      const shown = toDecimalString(value) ?? `${value.n}/${value.d}`;
      return {
        ok: false,
        reason: `annotation ${i + 1} <<${a.expr}=${a.resultText}>>: ${a.expr} = ${shown}, not ${a.resultText}`,
      };
    }
  }
  const finalText = extractGsm8kAnswer(solution);
  if (finalText === null) return { ok: false, reason: "no final '#### <answer>' line" };
  const final = parseDecimal(finalText);
  if (final === null) return { ok: false, reason: `final answer '${finalText}' is not a number` };
  const last = annotations[annotations.length - 1]!;
  if (!equals(final, last.result))
    return {
      ok: false,
      reason: `final answer ${finalText} does not equal the last annotation's result ${last.resultText}`,
    };
  return { ok: true };
}
