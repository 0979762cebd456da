import { describe, expect, it } from 'vitest';
import {
  ArithmeticError,
  evaluateArithmetic,
  literals,
  parseArithmetic,
} from '../../../src/operators/task/arithmetic.ts';
import {
  parseAnnotations,
  verifyAugmentedSolution,
} from '../../../src/operators/task/calculator-annotations.ts';
import { findNumberTokens, numberWordValues } from '../../../src/operators/task/number-tokens.ts';
import {
  add,
  decimalPlaces,
  parseDecimal,
  rational,
  toDecimalString,
} from '../../../src/operators/task/rational.ts';

const show = (text: string) => {
  const r = evaluateArithmetic(text);
  return toDecimalString(r) ?? `${r.n}/${r.d}`;
};

describe('rational numbers', () => {
  it('are exact', () => {
    expect(add(parseDecimal('0.1')!, parseDecimal('0.2')!)).toEqual(rational(3n, 10n));
    expect(parseDecimal('-3.25')).toEqual(rational(-13n, 4n));
    expect(parseDecimal('.5')).toEqual(rational(1n, 2n));
    expect(parseDecimal('1,234')).toEqual(rational(1234n));
    expect(parseDecimal('1.2.3')).toBeNull();
    expect(parseDecimal('')).toBeNull();
  });
  it('write terminating decimals exactly and refuse the others', () => {
    expect(toDecimalString(rational(123456789n, 100n), 0, true)).toBe('1,234,567.89');
    expect(toDecimalString(rational(7n, 2n), 2)).toBe('3.50');
    expect(toDecimalString(rational(-1n, 8n))).toBe('-0.125');
    expect(toDecimalString(rational(1n, 3n))).toBeNull();
    expect(decimalPlaces(rational(1n, 40n))).toBe(3);
  });
});

describe('arithmetic evaluator', () => {
  it('follows precedence, parentheses, unary minus and decimals', () => {
    expect(show('2+3*4')).toBe('14');
    expect(show('(2+3)*4')).toBe('20');
    expect(show('16-3-4')).toBe('9');
    expect(show('-3--2')).toBe('-1');
    expect(show('10/4')).toBe('2.5');
    expect(show('80000*1.5')).toBe('120000');
    expect(show('20*.01')).toBe('0.2');
    expect(show('1/3*3')).toBe('1');
    expect(show(' 2 * ( 3 + 4 ) ')).toBe('14');
  });
  it('refuses anything else, without eval', () => {
    for (const bad of ['2 3', '2**3', 'eval(1)', '2+', '(1', '1)', '5.', 'x']) {
      expect(() => parseArithmetic(bad), bad).toThrow(ArithmeticError);
    }
    expect(() => evaluateArithmetic('2/(3-3)')).toThrow(RangeError);
  });
  it('remembers where each literal is', () => {
    const lits = literals(parseArithmetic('16 - 3-(4)'));
    expect(lits.map((l) => [l.text, l.start, l.end])).toEqual([
      ['16', 0, 2],
      ['3', 5, 6],
      ['4', 8, 9],
    ]);
  });
});

describe('calculator annotations', () => {
  const janet = 'She has 16-3-4=<<16-3-4=9>>9 left.\nShe makes 9*2=<<9*2=18>>18.\n#### 18';
  it('are parsed in order with their positions', () => {
    const anns = parseAnnotations(janet);
    expect(anns.map((a) => [a.expr, a.resultText, janet.slice(a.start, a.end)])).toEqual([
      ['16-3-4', '9', '<<16-3-4=9>>'],
      ['9*2', '18', '<<9*2=18>>'],
    ]);
  });
  it('verifyAugmentedSolution accepts a consistent solution', () => {
    expect(verifyAugmentedSolution(janet)).toEqual({ ok: true });
    expect(verifyAugmentedSolution('a <<1,000/4=250>> b\n#### 250').ok).toBe(false);
    expect(verifyAugmentedSolution('<<2.5*2=5.0>>\n#### 5').ok).toBe(true);
  });
  it('verifyAugmentedSolution says what is wrong', () => {
    expect(verifyAugmentedSolution(janet.replace('=18>>', '=19>>'))).toEqual({
      ok: false,
      reason: 'annotation 2 <<9*2=19>>: 9*2 = 18, not 19',
    });
    expect(verifyAugmentedSolution(janet.replace('#### 18', '#### 19'))).toEqual({
      ok: false,
      reason: "final answer 19 does not equal the last annotation's result 18",
    });
    expect(verifyAugmentedSolution(janet.replace('#### 18', ''))).toEqual({
      ok: false,
      reason: "no final '#### <answer>' line",
    });
    expect(verifyAugmentedSolution('no annotations\n#### 3')).toEqual({
      ok: false,
      reason: 'no calculator annotations (<<expr=result>>)',
    });
    expect(verifyAugmentedSolution('<<10/3=3.33>>\n#### 3.33')).toEqual({
      ok: false,
      reason: 'annotation 1 <<10/3=3.33>>: 10/3 = 10/3, not 3.33',
    });
    expect(verifyAugmentedSolution('<<2^3=8>>\n#### 8').reason).toBe(
      'annotation 1 <<2^3=8>>: unexpected \'^\' at offset 1 in "2^3"',
    );
  });
});

describe('number tokens', () => {
  it('keep how numbers are written and mark the ones to leave alone', () => {
    const toks = findNumberTokens('Pay $80,000 and 2.50 on the 3rd, at 3:30, 1/2 of 12-foot x2 and 7.');
    expect(toks.map((t) => [t.text, t.commas, t.places, t.opaque])).toEqual([
      ['80,000', true, 0, false],
      ['2.50', false, 2, false],
      ['3', false, 0, true],
      ['3', false, 0, true],
      ['30', false, 0, true],
      ['1', false, 0, true],
      ['2', false, 0, true],
      ['12', false, 0, false],
      ['2', false, 0, true],
      ['7', false, 0, false],
    ]);
    // In solutions a slash is division.
    expect(findNumberTokens('60/100 * 5', 'solution').map((t) => t.opaque)).toEqual([false, false, false]);
  });
  it('number words', () => {
    expect(
      [...numberWordValues('Five pies, twice a day, one-third of a dozen')].sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 5, 12]);
  });
});
